import { homedir } from 'node:os';
import path from 'node:path';

/** Where {@link defaultToolStoreRoot} looks; every field defaults to the running process's. */
export interface ToolStoreRootOptions {
  /** Environment: `XDG_STATE_HOME` (Linux and other Unix), `LOCALAPPDATA` (Windows). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A `process.platform` value. */
  readonly platform?: NodeJS.Platform;
  /** The user's home directory. */
  readonly homeDirectory?: string;
}

/**
 * The platform's per-user state directory for tools:
 * - Linux and other Unix: `$XDG_STATE_HOME/rlm/tools`, else `~/.local/state/rlm/tools`;
 * - macOS: `~/Library/Application Support/rlm/tools`;
 * - Windows: `%LOCALAPPDATA%\rlm\tools`, else `~\AppData\Local\rlm\tools`.
 *
 * Pure: it computes a path and creates nothing. A relative `XDG_STATE_HOME` is ignored, as
 * the XDG specification requires.
 */
export function defaultToolStoreRoot(options: ToolStoreRootOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.homeDirectory ?? homedir();
  if (platform === 'win32') {
    const localAppData = env.LOCALAPPDATA?.trim() || path.win32.join(home, 'AppData', 'Local');
    return path.win32.join(localAppData, 'rlm', 'tools');
  }
  if (platform === 'darwin') {
    return path.posix.join(home, 'Library', 'Application Support', 'rlm', 'tools');
  }
  const stateHome = env.XDG_STATE_HOME?.trim();
  const base =
    stateHome && path.posix.isAbsolute(stateHome)
      ? stateHome
      : path.posix.join(home, '.local', 'state');
  return path.posix.join(base, 'rlm', 'tools');
}
