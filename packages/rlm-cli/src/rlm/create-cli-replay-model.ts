import { formatErrorLine } from '@rlm/core';
import { readFileSync } from 'node:fs';
import { createReplayModel, type ReplayModel, TraceCorruptError } from '@rlm/trace';
import type { ModelSpec } from '../run-options/run-options.js';
import { UsageError } from '../usage-error.js';

/** What a stored run's id looks like (see `createRunId`). */
export const runIdPattern = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/**
 * The model of a `replay:<trace>` spec: the responses recorded in the JSON lines of a run
 * (`rlm trace --jsonl`), read now, or in `spec.replayTrace` when a run id was looked up in the
 * store beforehand.
 *
 * @throws {UsageError} one line naming the trace, when it cannot be read, is not a trace, or
 *   holds no recorded model calls.
 */
export function createCliReplayModel(spec: ModelSpec): ReplayModel {
  const name = `replay:${spec.modelId}`;
  let text = spec.replayTrace;
  if (text === undefined) {
    try {
      text = readFileSync(spec.modelId, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const storedRun = runIdPattern.test(spec.modelId)
        ? ' (a stored run replays by its id in rlm "query" only; here, write it first: rlm trace <run-id> --jsonl -o run.jsonl)'
        : '';
      throw new UsageError(
        code === 'ENOENT'
          ? `${name}: no such file${storedRun}; give the JSON lines of a run (rlm trace <run-id> --jsonl -o run.jsonl) or a stored run's id (rlm runs)`
          : `${name}: cannot read it (${code ?? String(error)})`,
        { cause: error },
      );
    }
  }
  let model: ReplayModel;
  try {
    model = createReplayModel({ trace: text, source: spec.modelId });
  } catch (error) {
    if (!TraceCorruptError.isInstance(error)) throw error;
    throw new UsageError(`${name}: ${formatErrorLine(error)}`, {
      cause: error,
    });
  }
  if (model.recorded === 0) {
    throw new UsageError(
      `${name} holds no recorded model calls (a trace kept before rlm recorded them, or a run that made none); record the run again`,
    );
  }
  return model;
}
