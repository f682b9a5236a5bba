import { describe, expect, test } from 'vitest';
import { defaultToolStoreRoot } from './default-tool-store-root.js';

describe('defaultToolStoreRoot', () => {
  test('Linux uses XDG_STATE_HOME when it is absolute', () => {
    expect(
      defaultToolStoreRoot({
        platform: 'linux',
        env: { XDG_STATE_HOME: '/var/state' },
        homeDirectory: '/home/ada',
      }),
    ).toBe('/var/state/rlm/tools');
  });

  test('Linux falls back to ~/.local/state, ignoring a relative XDG_STATE_HOME', () => {
    expect(defaultToolStoreRoot({ platform: 'linux', env: {}, homeDirectory: '/home/ada' })).toBe(
      '/home/ada/.local/state/rlm/tools',
    );
    expect(
      defaultToolStoreRoot({
        platform: 'freebsd',
        env: { XDG_STATE_HOME: 'relative/state' },
        homeDirectory: '/home/ada',
      }),
    ).toBe('/home/ada/.local/state/rlm/tools');
  });

  test('macOS uses Application Support', () => {
    expect(
      defaultToolStoreRoot({
        platform: 'darwin',
        env: { XDG_STATE_HOME: '/ignored' },
        homeDirectory: '/Users/ada',
      }),
    ).toBe('/Users/ada/Library/Application Support/rlm/tools');
  });

  test('Windows uses LOCALAPPDATA, else AppData\\Local', () => {
    expect(
      defaultToolStoreRoot({
        platform: 'win32',
        env: { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' },
        homeDirectory: 'C:\\Users\\ada',
      }),
    ).toBe('C:\\Users\\ada\\AppData\\Local\\rlm\\tools');
    expect(
      defaultToolStoreRoot({ platform: 'win32', env: {}, homeDirectory: 'C:\\Users\\ada' }),
    ).toBe('C:\\Users\\ada\\AppData\\Local\\rlm\\tools');
  });

  test('defaults to the running process', () => {
    expect(defaultToolStoreRoot()).toMatch(/rlm[/\\]tools$/);
  });
});
