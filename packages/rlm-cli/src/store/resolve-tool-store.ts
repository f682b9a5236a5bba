import path from 'node:path';
import { defaultToolStoreRoot } from '@rlm/toolstore';
import { UsageError } from '../usage-error.js';

/** Where a run keeps its durable tools, and which setting chose it. */
export interface ToolStoreChoice {
  /** The store's directory. */
  readonly root: string;
  /**
   * `--toolstore` or `RLM_TOOLSTORE` when one of them named it, `default` when it is the
   * project's store beside the artifact store: error messages name it.
   */
  readonly source: '--toolstore' | 'RLM_TOOLSTORE' | 'default';
}

/** The `--toolstore` / `RLM_TOOLSTORE` value that asks for the per-user store. */
export const userToolStoreKeyword = 'user';

/**
 * The tool store a run uses, strongest first:
 * - `--toolstore <dir>`, else `RLM_TOOLSTORE`: that directory; the word `user` means the
 *   per-user store shared by every project (`defaultToolStoreRoot`: `~/.local/state/rlm/tools`
 *   on Linux); `./user` names a directory called `user`;
 * - else the project's store: the directory `tools` beside the artifact store (`.rlm/tools` for
 *   the default `.rlm/rlm.sqlite`);
 * - with no artifact store (`--no-store`) or a Redis one, and neither setting: none, so nothing
 *   is kept.
 *
 * Pure: it creates nothing. Throws a `UsageError` for an empty `--toolstore`.
 */
export function resolveToolStore(options: {
  readonly flag: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly storePath: string | undefined;
}): ToolStoreChoice | undefined {
  const { flag, env, storePath } = options;
  const fromEnv = env.RLM_TOOLSTORE?.trim() ? env.RLM_TOOLSTORE : undefined;
  const named = flag ?? fromEnv;
  if (named !== undefined) {
    const source = flag !== undefined ? '--toolstore' : 'RLM_TOOLSTORE';
    if (named.trim() === '') {
      throw new UsageError(
        `${source} needs a directory, or ${userToolStoreKeyword} for the per-user store`,
      );
    }
    return {
      root: named === userToolStoreKeyword ? defaultToolStoreRoot({ env }) : named,
      source,
    };
  }
  // A Redis store has no directory to keep tools beside.
  if (storePath === undefined || /^rediss?:\/\//i.test(storePath)) return undefined;
  return { root: path.join(path.dirname(storePath), 'tools'), source: 'default' };
}
