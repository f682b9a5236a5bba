import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, expect, test } from 'vitest';
import { mayBeAlive } from './process-liveness.js';

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** The first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    child.on('error', reject);
  });
}

/**
 * A process whose parent never reaps it: `sh` starts `sleep` in the background, prints its
 * pid, then becomes a `sleep` itself, which never waits for its children. Resolves once the
 * parent is that `sleep`: until then the shell could still reap a child killed early.
 */
async function unreapedChild(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(parent);
  const pid = Number(await firstLine(parent));
  await until(() => readFileSync(`/proc/${parent.pid}/comm`, 'latin1').trim() === 'sleep');
  return { pid, parent };
}

function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the process state');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('this process is alive; a process on another host is assumed alive', () => {
  expect(mayBeAlive(process.pid, hostname())).toBe(true);
  expect(mayBeAlive(2 ** 22 + 12345, `not-${hostname()}`)).toBe(true);
});

test('a process that exited and was reaped is dead', async () => {
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid as number;
  await new Promise((resolve) => child.on('close', resolve));
  expect(mayBeAlive(pid, hostname())).toBe(false);
});

test.runIf(process.platform === 'linux')(
  'a killed process its parent has not reaped (a zombie) is dead at once',
  async () => {
    const { pid } = await unreapedChild();
    expect(mayBeAlive(pid, hostname())).toBe(true);
    process.kill(pid, 'SIGKILL');
    await until(() => stateOf(pid) === 'Z');
    // Still there for `kill(pid, 0)`: only its state tells.
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(mayBeAlive(pid, hostname())).toBe(false);
  },
);
