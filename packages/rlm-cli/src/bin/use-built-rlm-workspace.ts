import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type FakeMessagesServer,
  type FakeMessagesServerOptions,
  type FakeReply,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { builtRlmBin } from './start-built-rlm.js';

/** Test harness: what every file of tests of the built bin shares. */

/** The place a file of bin tests works in; see {@link useBuiltRlmWorkspace}. */
export interface BuiltRlmWorkspace {
  /** A directory of its own under the OS temp directory: there from the first test to the last. */
  readonly root: string;
  /**
   * Starts a fake Messages API serving `replies` (or set up by `options`); it is closed after the
   * test that started it.
   */
  serve(replies?: readonly FakeReply[] | FakeMessagesServerOptions): Promise<FakeMessagesServer>;
  /** Writes `content` to `name` under `directory`, making parent directories; resolves to its path. */
  writeFileIn(directory: string, name: string, content: string | Buffer): Promise<string>;
}

/**
 * Registers the vitest hooks of a file of bin tests and returns its workspace: before all, checks
 * the bin is built and makes `root` (named `prefix` and a random suffix); after each test, closes
 * the fake servers that test started; after all, removes `root`. Call it at the top of the file.
 */
export function useBuiltRlmWorkspace(prefix: string): BuiltRlmWorkspace {
  const root = path.join(tmpdir(), `${prefix}${randomUUID()}`);
  const servers: FakeMessagesServer[] = [];
  beforeAll(async () => {
    if (!existsSync(builtRlmBin)) {
      throw new Error(`${builtRlmBin} is missing; run pnpm build first`);
    }
    await mkdir(root);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return {
    root,
    serve: async (replies = {}) => {
      const server = await startFakeMessagesServer(isReplies(replies) ? { replies } : replies);
      servers.push(server);
      return server;
    },
    writeFileIn: async (directory, name, content) => {
      const file = path.join(directory, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
  };
}

function isReplies(
  value: readonly FakeReply[] | FakeMessagesServerOptions,
): value is readonly FakeReply[] {
  return Array.isArray(value);
}
