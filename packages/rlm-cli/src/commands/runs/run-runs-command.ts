import { listRuns } from '@rlm/trace';
import { formatRunsTable } from '../../output/format-runs-table.js';
import { openExistingStore } from '../../store/open-existing-store.js';
import { parseCommandArguments } from '../../parse-command-arguments.js';
import { defaultStorePath } from '../../run-options/run-options.js';
import { UsageError } from '../../usage-error.js';

/** Where `rlm runs` and `rlm trace` print. */
export interface RunsCommandOutput {
  readonly stdout: NodeJS.WritableStream & { readonly columns?: number; readonly isTTY?: boolean };
}

const runsHelp = `Usage: rlm runs [--limit <n>] [--json] [--store <file>]

Recent runs, newest first: run id, start, status, steps, tokens, cost (? when the model
reports none), duration and query. Every query run with a store keeps its trace there.

      --limit <n>      how many runs (default 20)
      --json           one JSON array of run summaries
      --store <file>   the SQLite store (default ${defaultStorePath})
`;

/**
 * `rlm runs`: lists the runs kept in the store. Resolves to the exit code (0); rejects with
 * `UsageError` for bad flags or a missing store, and with the store's errors.
 */
export async function runRunsCommand(
  argv: readonly string[],
  output: RunsCommandOutput,
): Promise<number> {
  const { values } = parseCommandArguments(argv, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    output.stdout.write(runsHelp);
    return 0;
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || !/^\d+$/.test(values.limit ?? '20')) {
    throw new UsageError(
      `--limit needs a positive whole number (got ${JSON.stringify(values.limit)})`,
    );
  }
  const store = await openExistingStore(values.store ?? defaultStorePath);
  try {
    const runs = await listRuns(store, { limit });
    output.stdout.write(
      values.json
        ? `${JSON.stringify(runs, null, 2)}\n`
        : formatRunsTable(runs, output.stdout.isTTY ? (output.stdout.columns ?? 120) : 200),
    );
    return 0;
  } finally {
    await store.close();
  }
}
