import { PassThrough } from 'node:stream';
import { runCli } from '../run-cli.js';
import { textCollector } from './text-collector.js';

/** How an in-process run of the CLI ended, with everything it printed. */
export interface PipedCliResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `runCli` in this process with `argv`, piped (not a terminal) stdin holding `input`, and
 * an environment of a test Anthropic key, `baseURL` as the Messages API and `NO_COLOR`.
 */
export async function runCliPiped(
  argv: readonly string[],
  options: { readonly baseURL: string; readonly input?: string },
): Promise<PipedCliResult> {
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const stdout = textCollector();
  const stderr = textCollector();
  const exitCode = await runCli({
    argv,
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.baseURL, NO_COLOR: '1' },
    stdin,
    stdout,
    stderr,
    onInterrupt: () => () => {},
  });
  return { exitCode, stdout: stdout.text, stderr: stderr.text };
}
