#!/usr/bin/env node
// The `rlm` command. This file is not built: it exists as soon as the package is installed,
// so package managers can link the command before `dist/` is built (in this repository, at
// `pnpm install`, before `pnpm build`). It loads the built command.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin/rlm.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    'rlm: @rlm/cli is not built yet; run pnpm build at the top of the repository, then try again\n',
  );
  process.exit(2);
}
