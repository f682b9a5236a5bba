import { describe, expect, test } from 'vitest';
import { resolveToolStore } from './resolve-tool-store.js';

describe('resolveToolStore', () => {
  const home = { XDG_STATE_HOME: '/home/ada/.state' };

  test('by default the project keeps its tools beside its artifact store', () => {
    expect(resolveToolStore({ flag: undefined, env: {}, storePath: '.rlm/rlm.sqlite' })).toEqual({
      root: '.rlm/tools',
      source: 'default',
    });
    expect(
      resolveToolStore({ flag: undefined, env: {}, storePath: '/work/a/state/x.sqlite' }),
    ).toEqual({ root: '/work/a/state/tools', source: 'default' });
  });

  test('with --no-store and no choice, there is no tool store', () => {
    expect(resolveToolStore({ flag: undefined, env: {}, storePath: undefined })).toBeUndefined();
  });

  test('the per-user store is only an explicit choice: --toolstore user or RLM_TOOLSTORE=user', () => {
    expect(resolveToolStore({ flag: 'user', env: home, storePath: undefined })).toEqual({
      root: '/home/ada/.state/rlm/tools',
      source: '--toolstore',
    });
    expect(
      resolveToolStore({
        flag: undefined,
        env: { ...home, RLM_TOOLSTORE: 'user' },
        storePath: '.rlm/rlm.sqlite',
      }),
    ).toEqual({ root: '/home/ada/.state/rlm/tools', source: 'RLM_TOOLSTORE' });
    expect(resolveToolStore({ flag: './user', env: home, storePath: undefined })?.root).toBe(
      './user',
    );
  });

  test('--toolstore wins over RLM_TOOLSTORE; empty values are usage errors or ignored', () => {
    expect(
      resolveToolStore({ flag: '/a', env: { RLM_TOOLSTORE: '/b' }, storePath: undefined }),
    ).toEqual({ root: '/a', source: '--toolstore' });
    expect(
      resolveToolStore({
        flag: undefined,
        env: { RLM_TOOLSTORE: ' ' },
        storePath: '.rlm/rlm.sqlite',
      }),
    ).toEqual({ root: '.rlm/tools', source: 'default' });
    expect(() => resolveToolStore({ flag: '', env: {}, storePath: undefined })).toThrow(
      '--toolstore needs a directory, or user for the per-user store',
    );
  });
});
