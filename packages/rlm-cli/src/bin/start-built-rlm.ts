import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Test harness: the built `rlm` bin as a real subprocess. */

/** The built bin; tests need `pnpm build` first. */
export const builtRlmBin = fileURLToPath(new URL('../../dist/bin/rlm.js', import.meta.url));

/** The Anthropic key the bin gets when it is given a `baseURL`. */
export const testAnthropicKey = 'sk-ant-test-key';

/** How a run of the bin ended, with everything it printed. */
export interface BuiltRlmResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to start the bin. */
export interface BuiltRlmOptions {
  /** The working directory (a default store goes to `./.rlm` there). */
  readonly cwd: string;
  /**
   * The fake Messages API: sets `ANTHROPIC_BASE_URL` to it and `ANTHROPIC_API_KEY` to
   * {@link testAnthropicKey}. Without it, neither is set.
   */
  readonly baseURL?: string;
  /** Environment entries over `PATH` and the Anthropic pair; `undefined` drops an entry. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Written to stdin, which is then closed; empty by default. */
  readonly input?: string;
  /**
   * Run under a pseudo-terminal (util-linux `script`): stdout and stderr are a TTY, and both
   * arrive in `stdout`, with `\r\n` line ends.
   */
  readonly terminal?: boolean;
  /** A command that runs the bin, e.g. `['prlimit', '--fsize=4096']`. */
  readonly wrapper?: readonly string[];
  /** Sees stderr each time it grows and may signal the child. */
  readonly onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void;
}

/** A running bin. */
export interface BuiltRlmProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The process id (of `script` under `terminal`). */
  readonly pid: number;
  /** Settles when the process has exited and its streams closed. */
  readonly done: Promise<BuiltRlmResult>;
  /** Resolves once stderr contains `text`; rejects, with the stderr, if the bin exits first. */
  readonly stderrContains: (text: string) => Promise<void>;
  /** Sends `signal` to the process. */
  readonly kill: (signal: NodeJS.Signals) => void;
}

/**
 * Starts the bin with only `PATH`, the Anthropic pair (with `baseURL`) and `env` as its
 * environment; stdin gets `input` and is closed.
 */
export function startBuiltRlm(args: readonly string[], options: BuiltRlmOptions): BuiltRlmProcess {
  const command = [...(options.wrapper ?? []), process.execPath, builtRlmBin, ...args];
  const [file, ...argv] = options.terminal
    ? ['script', '-qefc', command.map(shellQuote).join(' '), '/dev/null']
    : command;
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    ...(options.baseURL === undefined
      ? {}
      : { ANTHROPIC_API_KEY: testAnthropicKey, ANTHROPIC_BASE_URL: options.baseURL }),
    ...options.env,
  };
  const child = spawn(file!, argv, {
    cwd: options.cwd,
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { readonly text: string; readonly resolve: () => void }[] = [];
  const kill = (signal: NodeJS.Signals) => {
    child.kill(signal);
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters.filter((candidate) => stderr.includes(candidate.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    options.onStderr?.(stderr, kill);
  });
  child.stdin.end(options.input ?? '');
  const done = new Promise<BuiltRlmResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const stderrContains = (text: string) =>
    stderr.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ text, resolve });
          done.then(
            (result) =>
              reject(new Error(`exited before printing ${JSON.stringify(text)}: ${result.stderr}`)),
            reject,
          );
        });
  return { child, pid: child.pid!, done, stderrContains, kill };
}

/** Runs the bin to its end; see {@link startBuiltRlm}. */
export function runBuiltRlm(
  args: readonly string[],
  options: BuiltRlmOptions,
): Promise<BuiltRlmResult> {
  return startBuiltRlm(args, options).done;
}

/** The stderr lines that start with `rlm: `. */
export function rlmLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('rlm: '));
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
