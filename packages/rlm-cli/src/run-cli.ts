import type { RunCliOptions } from './cli-io.js';
import { cliVersion } from './cli-version.js';
import { helpText } from './commands/run/help-text.js';
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
    // Each command is loaded when it runs: a plain run never loads the server, the queue's
    // Redis client or the eval harness (tens of MiB a process would otherwise keep).
    switch (command.kind) {
      case 'help':
        stdout.write(helpText());
        return 0;
      case 'version':
        stdout.write(`${cliVersion}\n`);
        return 0;
      case 'run':
        return await (await import('./commands/run/run-run-command.js')).runRunCommand(
          command.options,
          options,
        );
      case 'store':
        return await (await import('./commands/store/run-store-command.js')).runStoreCommand(
          command.argv,
          { storePath: command.storePath, stdout },
        );
      case 'runs':
        return await (await import('./commands/runs/run-runs-command.js')).runRunsCommand(
          command.argv,
          { stdout },
        );
      case 'trace':
        return await (await import('./commands/trace/run-trace-command.js')).runTraceCommand(
          command.argv,
          { stdout, stderr },
        );
      case 'batch':
        return await (await import('./commands/batch/run-batch-command.js')).runBatchCommand(
          command.argv,
          options,
        );
      case 'worker':
        return await (await import('./commands/worker/run-worker-command.js')).runWorkerCommand(
          command.argv,
          options,
        );
      case 'serve':
        return await (await import('./commands/serve/run-serve-command.js')).runServeCommand(
          command.argv,
          options,
        );
      case 'mcp':
        return await (await import('./commands/mcp/run-mcp-command.js')).runMcpCommand(
          command.argv,
          options,
        );
      case 'eval':
        return await (await import('./commands/eval/run-eval-command.js')).runEvalCommand(
          command.argv,
          options,
        );
      case 'tools':
        return await (await import('./commands/tools/run-tools-command.js')).runToolsCommand(
          command,
          { stdout, stderr },
        );
    }
  } catch (error) {
    // `--json` anywhere before `--` asks for a JSON error report, even when the flags are bad.
    return reportCommandError(error, { json: jsonRequested(options.argv), stdout, stderr });
  }
}
