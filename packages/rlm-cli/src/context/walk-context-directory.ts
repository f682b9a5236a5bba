import { type Dirent, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ContextFile } from './context-file.js';
import type { ContextRoot } from './context-root.js';
import type { ContextPathFilter } from './context-path-filter.js';
import { fileSystemError } from './file-system-error.js';
import { GitignoreRules, readGitignore } from './gitignore-rules.js';
import { TimeSlicer } from './time-slicer.js';

/** Which entries a directory walk leaves out. */
export interface WalkOptions {
  /** `--include` / `--exclude` globs. */
  readonly filter: ContextPathFilter;
  /** Honour `.gitignore` files in the tree and above it (up to the Git work tree's top). */
  readonly gitignore: boolean;
  /** Leave out hidden entries (names starting with `.`) and `node_modules` directories. */
  readonly defaultExcludes: boolean;
  /** Leave out symbolic links that lead out of this root, like special files. */
  readonly within?: ContextRoot;
}

/** What a walk found. */
export interface WalkResult {
  /** Files to load, sorted by their `/`-separated relative paths (code unit order). */
  readonly files: ContextFile[];
  /** Entries left out, by reason; a directory left out counts once, whatever it holds. */
  readonly skipped: {
    /** Hidden entries and `node_modules` (with `defaultExcludes`); `.git` always. */
    readonly byDefault: number;
    readonly byGitignore: number;
    readonly byExclude: number;
    /** Files no `--include` glob matched. */
    readonly notIncluded: number;
    /** Symbolic links to directories, broken links, sockets, pipes and devices. */
    readonly special: number;
  };
}

interface PendingDirectory {
  readonly relativePath: string;
  readonly rules: GitignoreRules;
  /** An `--include` glob matched this directory or one above it. */
  readonly included: boolean;
}

type Kind = 'file' | 'directory' | 'other';

/**
 * Walks `directory` recursively, reading each directory once (and its `.gitignore` when
 * asked). Ignored and excluded directories are never entered. Symbolic links to files are
 * followed; links to directories are not (no cycles). A `.git` entry is always left out.
 * Synchronous file system calls, several times faster than promises for this many small
 * operations, in slices that give the event loop a turn. Rejects with a one-line
 * `ContextLoadError` when a directory or a `.gitignore` cannot be read.
 */
export async function walkContextDirectory(
  directory: string,
  options: WalkOptions,
): Promise<WalkResult> {
  const files: ContextFile[] = [];
  const skipped = { byDefault: 0, byGitignore: 0, byExclude: 0, notIncluded: 0, special: 0 };
  const { filter } = options;
  const slicer = new TimeSlicer();
  const rules = options.gitignore ? await GitignoreRules.above(directory) : GitignoreRules.none;
  const pending: PendingDirectory[] = [{ relativePath: '', rules, included: false }];

  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    await slicer.pause();
    const absolute = path.join(directory, current.relativePath);
    const entries = listDirectory(absolute);
    let rules = current.rules;
    if (options.gitignore && entries.some((entry) => entry.name === '.gitignore')) {
      const text = await readGitignore(path.join(absolute, '.gitignore'));
      if (text !== undefined) rules = rules.withFile(current.relativePath, text);
    }
    for (const entry of entries) {
      const { name } = entry;
      if (name === '.git' || (options.defaultExcludes && isDefaultExclude(name))) {
        skipped.byDefault++;
        continue;
      }
      const relativePath = current.relativePath === '' ? name : `${current.relativePath}/${name}`;
      const entryPath = path.join(directory, relativePath);
      const kind = kindOf(entry, entryPath, options.within);
      if (kind === 'other') {
        skipped.special++;
      } else if (options.gitignore && rules.ignores(relativePath, kind === 'directory')) {
        skipped.byGitignore++;
      } else if (filter.excludes(relativePath)) {
        skipped.byExclude++;
      } else if (kind === 'directory') {
        const included = current.included || filter.includes(relativePath);
        pending.push({ relativePath, rules, included });
      } else if (filter.hasIncludes && !current.included && !filter.includes(relativePath)) {
        skipped.notIncluded++;
      } else {
        files.push({ path: entryPath, relativePath, size: sizeOf(entryPath) });
      }
    }
  }
  files.sort((left, right) => compareCodeUnits(left.relativePath, right.relativePath));
  return { files, skipped };
}

function isDefaultExclude(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

function listDirectory(absolute: string): Dirent[] {
  try {
    return readdirSync(absolute, { withFileTypes: true });
  } catch (error) {
    throw fileSystemError(absolute, error);
  }
}

/**
 * A directory entry's kind, following a symbolic link to a file (not to a directory); a link
 * out of `within` is `other`.
 */
function kindOf(entry: Dirent, entryPath: string, within: ContextRoot | undefined): Kind {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return 'other';
  if (within && !within.holdsSync(entryPath)) return 'other';
  try {
    return statSync(entryPath).isFile() ? 'file' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A broken link or a link cycle holds nothing to read.
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return 'other';
    throw fileSystemError(entryPath, error);
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    throw fileSystemError(file, error);
  }
}

function compareCodeUnits(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}
