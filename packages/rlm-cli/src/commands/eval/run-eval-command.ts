import { formatErrorLine } from '@rlm/core';
import { EvalSettingsError, writeSniahDataset } from '@rlm/eval';
import { formatBytes } from '../../output/format-bytes.js';
import { UsageError } from '../../usage-error.js';
import type { BatchCommandIo } from '../batch/batch-command-io.js';
import { EvalCommand } from './eval-command.js';
import { evalHelp } from './eval-help.js';
import { parseEvalArguments } from './parse-eval-arguments.js';

/**
 * `rlm eval`: runs a dataset with each variant (and the direct baseline) on rlm batch's runner,
 * scores each answer as it comes, appends one result line per item and variant to `--out`,
 * prints the summary on stdout and writes the `--report`. Or `--generate sniah` writes a
 * dataset. Resolves to the exit code; rejects with a `UsageError` before any model is called.
 */
export async function runEvalCommand(argv: readonly string[], io: BatchCommandIo): Promise<number> {
  const command = parseEvalArguments(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(evalHelp);
    return 0;
  }
  if (command.kind === 'generate') {
    const written = await writeSniahDataset(command.directory, command).catch((error: unknown) => {
      if (EvalSettingsError.isInstance(error)) {
        throw new UsageError(formatErrorLine(error), { cause: error });
      }
      throw error;
    });
    io.stderr.write(
      `rlm: wrote ${written.items} items (${formatBytes(written.contextBytes)} of contexts) to ${written.datasetFile}; run them with rlm eval ${written.datasetFile} --scorer contains\n`,
    );
    return 0;
  }
  return await new EvalCommand(command.options, io).run();
}
