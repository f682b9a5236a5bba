import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A `redis-server` process started by {@link startRedisServer}. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The running process; a new one after {@link RedisServer.restart}. */
  readonly process: ChildProcess;
  /**
   * Kills the server (SIGKILL: nothing is saved) and starts a new one on the same port with the
   * same arguments: without persistence, every key is gone.
   */
  restart(): Promise<void>;
  /** Kills the server; resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` (which must be on the `PATH`) on a free loopback port, without
 * persistence (`--save '' --appendonly no`), for tests: resolves once it accepts connections.
 * `args` are more `redis-server` arguments, e.g. `['--maxmemory', '2mb']`.
 */
export async function startRedisServer(
  options: { readonly args?: readonly string[] } = {},
): Promise<RedisServer> {
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    ...(options.args ?? []),
  ];
  let child = await launch(args);
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    get process() {
      return child;
    },
    async restart() {
      await kill(child);
      child = await launch(args);
    },
    stop: () => kill(child),
  };
  return server;
}

async function launch(args: readonly string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** A TCP port on 127.0.0.1 that nothing listens on (at the time of the call). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
