import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { fileSystemError } from './file-system-error.js';

/** The rules of one `.gitignore` file and where they apply. */
interface Level {
  readonly rules: Ignore;
  /**
   * For a file inside the walked tree: its directory, `/`-separated and relative to the top of
   * the walk ('' at the top). Paths below it are tested relative to it.
   */
  readonly base: string;
  /**
   * For a file above the walked tree: the path from its directory down to the top of the walk.
   * Paths are tested with this prefix.
   */
  readonly prefix: string;
}

/**
 * The `.gitignore` files that apply at one point of a directory walk, outermost first.
 * Immutable: {@link GitignoreRules.withFile} returns a new value. Follows Git: a deeper file's
 * rules win over an outer one's (so `!keep.log` below re-includes what `*.log` above ignored),
 * patterns are case-sensitive, and a path is ignored when a directory above it is. Git's
 * `.git/info/exclude` and global excludes file are not read.
 */
export class GitignoreRules {
  /** No rules: nothing is ignored. */
  static readonly none = new GitignoreRules([]);

  readonly #levels: readonly Level[];

  private constructor(levels: readonly Level[]) {
    this.#levels = levels;
  }

  /**
   * The rules of the `.gitignore` files above `directory` inside its Git work tree (up to the
   * nearest ancestor holding `.git`), for paths relative to `directory`. {@link none} outside a
   * work tree, and when those rules ignore `directory` itself: the user named it, so it is read
   * as the top of its own tree. Rejects with a `ContextLoadError` when a `.gitignore` exists
   * but cannot be read.
   */
  static async above(directory: string): Promise<GitignoreRules> {
    const absolute = path.resolve(directory);
    const ancestors: string[] = [];
    let current = absolute;
    while (!(await exists(path.join(current, '.git')))) {
      const parent = path.dirname(current);
      if (parent === current) return GitignoreRules.none;
      current = parent;
      ancestors.unshift(current);
    }
    const levels: Level[] = [];
    for (const ancestor of ancestors) {
      const text = await readGitignore(path.join(ancestor, '.gitignore'));
      if (text === undefined) continue;
      const prefix = path.relative(ancestor, absolute).split(path.sep).join('/');
      levels.push({ rules: compileRules(text), prefix, base: '' });
    }
    const rules = new GitignoreRules(levels);
    return rules.ignores('', true) ? GitignoreRules.none : rules;
  }

  /**
   * These rules plus those of a `.gitignore` (its `text`) found in `base`, the `/`-separated
   * directory relative to the top of the walk ('' for the top itself).
   */
  withFile(base: string, text: string): GitignoreRules {
    return new GitignoreRules([...this.#levels, { rules: compileRules(text), base, prefix: '' }]);
  }

  /**
   * Whether `relativePath` (`/`-separated, relative to the top of the walk; '' for the top) is
   * ignored. Pass `isDirectory` so that patterns ending in `/` apply.
   */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    for (let index = this.#levels.length - 1; index >= 0; index--) {
      const { rules, base, prefix } = this.#levels[index]!;
      const below = base === '' ? relativePath : relativePath.slice(base.length + 1);
      const tested = [prefix, below].filter((part) => part !== '').join('/');
      if (tested === '') continue;
      const result = rules.test(isDirectory ? `${tested}/` : tested);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }
}

/**
 * The text of the `.gitignore` file at `file`, or `undefined` when there is none. Any other
 * failure rejects with a one-line `ContextLoadError`.
 */
export async function readGitignore(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw fileSystemError(file, error);
  }
}

function compileRules(text: string): Ignore {
  return ignore({ ignorecase: false }).add(text);
}

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch {
    return false;
  }
}
