import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What one `rlm` process did. */
export interface CliProcessResult {
  readonly exitCode: number | null;
  /** When it was spawned (`performance.now()` of this process). */
  readonly startedAt: number;
  /** From spawn to exit, in milliseconds. */
  readonly wallMs: number;
  /** Its peak resident memory (`VmHWM`, worker threads included), in bytes; 0 if unknown. */
  readonly peakRssBytes: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built CLI's entry point (`packages/rlm-cli/dist/bin/rlm.js`). */
export function cliEntryPoint(): string {
  const manifest = createRequire(import.meta.url).resolve('@rlm/cli/package.json');
  return join(dirname(manifest), 'dist', 'bin', 'rlm.js');
}

/** The peak resident memory of process `pid` so far, from `/proc` (Linux); 0 elsewhere. */
async function peakRss(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs the built `rlm` CLI as its own process with `args`, in `cwd`, and waits for it to exit.
 * The peak memory is the process's high-water mark, read every 20 ms while it runs (so only
 * growth in its last 20 ms could be missed).
 */
export async function runCliProcess(
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    /** Told the process id once it is spawned. */
    readonly onSpawn?: (pid: number) => void;
  },
): Promise<CliProcessResult> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [cliEntryPoint(), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  let peak = 0;
  const pid = child.pid;
  if (pid !== undefined) options.onSpawn?.(pid);
  const sampler =
    pid === undefined
      ? undefined
      : setInterval(() => {
          void peakRss(pid).then((bytes) => {
            peak = Math.max(peak, bytes);
          });
        }, 20);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  const wallMs = performance.now() - startedAt;
  clearInterval(sampler);
  await closed;
  return { exitCode, startedAt, wallMs, peakRssBytes: peak, stdout, stderr };
}
