import { existsSync } from 'node:fs';
import {
  type FakeMessagesServer,
  type FakeMessagesServerOptions,
  type FakeReply,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { afterEach, beforeAll } from 'vitest';
import {
  type TemporaryDirectory,
  useTemporaryDirectory,
} from '../test-support/use-temporary-directory.js';
import { builtRlmBin } from './start-built-rlm.js';

/** Test harness: what every file of tests of the built bin shares. */

/** The place a file of bin tests works in; see {@link useBuiltRlmWorkspace}. */
export interface BuiltRlmWorkspace extends TemporaryDirectory {
  /**
   * Starts a fake Messages API serving `replies` (or set up by `options`); it is closed after the
   * test that started it.
   */
  serve(replies?: readonly FakeReply[] | FakeMessagesServerOptions): Promise<FakeMessagesServer>;
}

/**
 * Registers the vitest hooks of a file of bin tests and returns its workspace: before all, checks
 * the bin is built and makes `root` (see {@link useTemporaryDirectory}); after each test, closes
 * the fake servers that test started; after all, removes `root`. Call it at the top of the file.
 */
export function useBuiltRlmWorkspace(prefix: string): BuiltRlmWorkspace {
  beforeAll(() => {
    if (!existsSync(builtRlmBin)) {
      throw new Error(`${builtRlmBin} is missing; run pnpm build first`);
    }
  });
  const directory = useTemporaryDirectory(prefix);
  const servers: FakeMessagesServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return {
    ...directory,
    serve: async (replies = {}) => {
      const server = await startFakeMessagesServer(isReplies(replies) ? { replies } : replies);
      servers.push(server);
      return server;
    },
  };
}

function isReplies(
  value: readonly FakeReply[] | FakeMessagesServerOptions,
): value is readonly FakeReply[] {
  return Array.isArray(value);
}
