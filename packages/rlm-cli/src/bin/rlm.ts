#!/usr/bin/env node
import { keepMemoryLow } from '../memory/keep-memory-low.js';

// Before the rest loads: loading allocates enough to grow the young generation already.
keepMemoryLow();
const { runCli } = await import('../run-cli.js');

// A reader that goes away (`rlm ... | head -1`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

const exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Flush both streams (pipes are asynchronous on some platforms), then exit even if a
// sandbox worker or stdin still holds the event loop.
await Promise.all(
  [process.stdout, process.stderr].map(
    (stream) => new Promise((resolve) => stream.write('', resolve)),
  ),
);
process.exit(exitCode);
