import { formatErrorLine } from '@rlm/core';
import { existsSync } from 'node:fs';
import { loadTrace, TraceCorruptError, TraceNotFoundError, traceToJsonLines } from '@rlm/trace';
import { runIdPattern } from './create-cli-replay-model.js';
import { openExistingStore } from '../store/open-existing-store.js';
import type { CliOptions, ModelSpec } from '../run-options/run-options.js';
import { UsageError } from '../usage-error.js';

/**
 * `cli` with each `replay:<run-id>` spec (an id of a run in the store, and no file of that
 * name) holding that run's trace, read from the store `cli.storePath`.
 *
 * @throws {UsageError} when the run is not in the store, or there is no store.
 */
export async function withStoredReplays(cli: CliOptions): Promise<CliOptions> {
  const resolve = async (spec: ModelSpec | undefined): Promise<ModelSpec | undefined> => {
    if (
      spec?.provider !== 'replay' ||
      !runIdPattern.test(spec.modelId) ||
      existsSync(spec.modelId)
    ) {
      return spec;
    }
    if (cli.storePath === undefined) {
      throw new UsageError(
        `replay:${spec.modelId} is a stored run, and --no-store keeps no store to read it from; drop --no-store, or give the run's JSON lines (rlm trace ${spec.modelId} --jsonl -o run.jsonl)`,
      );
    }
    const store = await openExistingStore(cli.storePath);
    try {
      const trace = await loadTrace(store, spec.modelId);
      return { ...spec, replayTrace: traceToJsonLines(trace) };
    } catch (error) {
      if (!TraceNotFoundError.isInstance(error) && !TraceCorruptError.isInstance(error))
        throw error;
      throw new UsageError(`replay:${spec.modelId}: ${formatErrorLine(error)}`, {
        cause: error,
      });
    } finally {
      await store.close();
    }
  };
  const model = (await resolve(cli.model))!;
  const subModel = await resolve(cli.subModel);
  return model === cli.model && subModel === cli.subModel ? cli : { ...cli, model, subModel };
}
