import { runToolsCommand as runToolStoreCommand } from '@rlm/toolstore';
import type { CliOutput } from '../../cli-io.js';
import { cliVersion } from '../../cli-version.js';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import type { ToolsArguments } from './parse-tools-arguments.js';

/**
 * `rlm tools ...`: checks that the tool store's directory can be read, then runs
 * `@rlm/toolstore`'s maintenance command on it and resolves to its exit code.
 */
export async function runToolsCommand(
  command: ToolsArguments,
  io: { readonly stdout: CliOutput; readonly stderr: CliOutput },
): Promise<number> {
  await checkToolStoreDirectory(command.toolStore, { writable: false });
  return await runToolStoreCommand(command.argv, {
    stdout: io.stdout,
    stderr: io.stderr,
    runtimeVersion: cliVersion,
    root: command.toolStore.root,
  });
}
