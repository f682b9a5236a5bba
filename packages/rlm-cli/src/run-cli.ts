import type { RunCliOptions } from './cli-io.js';
import { cliVersion } from './cli-version.js';
import { runBatchCommand } from './commands/batch/run-batch-command.js';
import { runEvalCommand } from './commands/eval/run-eval-command.js';
import { runMcpCommand } from './commands/mcp/run-mcp-command.js';
import { helpText } from './commands/run/help-text.js';
import { runRunCommand } from './commands/run/run-run-command.js';
import { runRunsCommand } from './commands/runs/run-runs-command.js';
import { runServeCommand } from './commands/serve/run-serve-command.js';
import { runStoreCommand } from './commands/store/run-store-command.js';
import { runToolsCommand } from './commands/tools/run-tools-command.js';
import { runTraceCommand } from './commands/trace/run-trace-command.js';
import { runWorkerCommand } from './commands/worker/run-worker-command.js';
import { jsonRequested, reportCommandError } from './output/report-command-error.js';
import { parseArguments } from './parse-arguments.js';

/**
 * Runs the `rlm` command and resolves to its exit code: 0 answered, 1 a query failed, 2 bad
 * usage or context (nothing was sent to a model) or the run is held by another process, 3
 * answered but the store failed during the run (`--store-errors fail`), 130 interrupted, 143
 * terminated. Never rejects: every error is printed on `stderr` as one line starting with
 * `rlm: `.
 */
export async function runCli(options: RunCliOptions): Promise<number> {
  const { stdout, stderr } = options;
  try {
    const command = parseArguments(options.argv, options.env);
    switch (command.kind) {
      case 'help':
        stdout.write(helpText());
        return 0;
      case 'version':
        stdout.write(`${cliVersion}\n`);
        return 0;
      case 'run':
        return await runRunCommand(command.options, options);
      case 'store':
        return await runStoreCommand(command.argv, { storePath: command.storePath, stdout });
      case 'runs':
        return await runRunsCommand(command.argv, { stdout });
      case 'trace':
        return await runTraceCommand(command.argv, { stdout, stderr });
      case 'batch':
        return await runBatchCommand(command.argv, options);
      case 'worker':
        return await runWorkerCommand(command.argv, options);
      case 'serve':
        return await runServeCommand(command.argv, options);
      case 'mcp':
        return await runMcpCommand(command.argv, options);
      case 'eval':
        return await runEvalCommand(command.argv, options);
      case 'tools':
        return await runToolsCommand(command, { stdout, stderr });
    }
  } catch (error) {
    // `--json` anywhere before `--` asks for a JSON error report, even when the flags are bad.
    return reportCommandError(error, { json: jsonRequested(options.argv), stdout, stderr });
  }
}
