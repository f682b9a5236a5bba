import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Test harness: the built `rlm` bin as a real subprocess. */

/** The built bin; tests need `pnpm build` first. */
export const builtRlmBin = fileURLToPath(new URL('../../dist/bin/rlm.js', import.meta.url));

/** How a run of the bin ended, with everything it printed. */
export interface BuiltRlmResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running bin. */
export interface BuiltRlmProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Settles when the process has exited and its streams closed. */
  readonly done: Promise<BuiltRlmResult>;
  /** Stderr so far. */
  readonly stderr: () => string;
}

/**
 * Starts the bin in `cwd` with only `PATH`, a test API key and `baseURL` as environment, stdin
 * closed. `onStderr` sees stderr each time it grows and may signal the child.
 */
export function startBuiltRlm(
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly baseURL: string;
    readonly onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void;
    /**
     * Run under a pseudo-terminal (util-linux `script`): stdout and stderr are a TTY, and both
     * arrive in `stdout`, with `\r\n` line ends.
     */
    readonly terminal?: boolean;
  },
): BuiltRlmProcess {
  const command = [process.execPath, builtRlmBin, ...args];
  const [file, ...argv] = options.terminal
    ? ['script', '-qefc', command.map(shellQuote).join(' '), '/dev/null']
    : command;
  const child = spawn(file!, argv, {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
      ANTHROPIC_BASE_URL: options.baseURL,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    options.onStderr?.(stderr, (signal) => child.kill(signal));
  });
  child.stdin.end();
  const done = new Promise<BuiltRlmResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, stderr: () => stderr };
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
