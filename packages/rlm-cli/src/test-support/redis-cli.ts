import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Runs one command through `redis-cli` against the server at `url`; resolves to its output, trimmed. */
export async function redisCli(url: string, ...command: readonly string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('redis-cli', ['-u', url, ...command]);
  return stdout.trim();
}

/** Resolves once a key matching `pattern` exists in the Redis at `url`. */
export async function waitForRedisKey(url: string, pattern: string): Promise<void> {
  for (;;) {
    if ((await redisCli(url, '--scan', '--pattern', pattern)) !== '') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
