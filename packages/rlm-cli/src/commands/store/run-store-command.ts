import { existsSync } from 'node:fs';
import { formatBytes } from '../../output/format-bytes.js';
import { UsageError } from '../../usage-error.js';

const storeHelp = `Usage: rlm [--store <file>] store gc

  gc    reclaim what failed or killed writes left in the store (chunks of blobs never
        committed); committed blobs, records and checkpoints are kept. Safe while runs use
        the store. Freed space is reused by later writes (the file does not shrink).
`;

/**
 * Runs `rlm store <subcommand>` on the SQLite store at `storePath` and resolves to its exit
 * code: 0 done, 2 bad usage. `gc` prints what it freed on stdout; a missing store file is not
 * created (nothing to free). Store failures reject; the caller prints them.
 */
export async function runStoreCommand(
  argv: readonly string[],
  io: { readonly storePath: string; readonly stdout: NodeJS.WritableStream },
): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    io.stdout.write(storeHelp);
    return 0;
  }
  if (subcommand !== 'gc' || rest.length > 0) {
    throw new UsageError(
      subcommand === undefined
        ? 'rlm store needs a subcommand: rlm store gc'
        : `unknown rlm store command ${JSON.stringify([subcommand, ...rest].join(' '))}; the only one is rlm store gc`,
    );
  }
  if (!existsSync(io.storePath)) {
    io.stdout.write(`rlm store gc: no store at ${io.storePath}; nothing to free\n`);
    return 0;
  }
  // Loaded on demand, like the store itself: SQLite's native module is only needed here.
  const { collectGarbage, createSqliteArtifactStore } = await import('@rlm/artifacts');
  const store = await createSqliteArtifactStore({ path: io.storePath });
  try {
    const freed = await collectGarbage(store);
    io.stdout.write(
      freed.chunks === 0 && freed.uploads === 0
        ? `rlm store gc: nothing to free in ${io.storePath}\n`
        : `rlm store gc: freed ${formatBytes(freed.bytes)} in ${freed.chunks} ${plural(freed.chunks, 'chunk')} (${freed.uploads} unfinished ${plural(freed.uploads, 'write')}) in ${io.storePath}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
