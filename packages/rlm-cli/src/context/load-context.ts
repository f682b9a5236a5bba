import path from 'node:path';
import { ByteLimit } from './byte-limit.js';
import type { ContextFile } from './context-file.js';
import { ContextLoadError } from '../context-load-error.js';
import type { ContextRoot } from './context-root.js';
import { createContextPathFilter } from './context-path-filter.js';
import { statPath } from './file-system-error.js';
import { locateJsonError } from './locate-json-error.js';
import {
  readContextFile,
  readContextFileAsUtf8Text,
  readWalkedFileSync,
  startsLikeBinarySync,
} from './read-context-file.js';
import { TimeSlicer } from './time-slicer.js';
import { type WalkResult, walkContextDirectory } from './walk-context-directory.js';

/** Where the context comes from. Give `file` or `directory`, not both. */
export interface LoadContextOptions {
  /** One file: `.json` is parsed, anything else is read as a UTF-8 string. */
  readonly file?: string;
  /**
   * A directory, walked recursively. Files are taken in lexical order of their `/`-separated
   * relative paths. Left out: `.git`; hidden entries (names starting with `.`) and
   * `node_modules` unless `defaultExcludes` is false; what `.gitignore` files ignore unless
   * `gitignore` is false; what `exclude` matches or `include` does not; symbolic links to
   * directories, broken links and special files; binary files (see `strict`).
   */
  readonly directory?: string;
  /**
   * With `directory`: one string joining every file as text, each introduced by a header line
   * `==> relative/path <==` and separated by a blank line. Without it, an array with one item
   * per file: `{ path, text }`, or `{ path, data }` for a `.json` file that parses (`path` is
   * relative to `directory`, `/`-separated; see {@link ContextFileItem}).
   */
  readonly concat?: boolean;
  /**
   * With `directory`: globs a file must match one of to load (all files when empty). A glob
   * without `/` matches a name at any depth (`*.md`); one with `/` matches from the top
   * (`docs/**`); a directory matched includes everything below it.
   */
  readonly include?: readonly string[];
  /** With `directory`: globs of files and directories to leave out, same syntax as `include`. */
  readonly exclude?: readonly string[];
  /**
   * With `directory`: honour `.gitignore` files in the tree and above it, up to the top of its
   * Git work tree (default true).
   */
  readonly gitignore?: boolean;
  /** With `directory`: leave out hidden entries and `node_modules` (default true). */
  readonly defaultExcludes?: boolean;
  /**
   * A binary file under `directory` (a NUL byte among its first 8000 bytes, or not valid
   * UTF-8) fails the load instead of being skipped and listed in `binaryFiles`; a `.json` file
   * that does not parse (JSONC, JSON5) fails it instead of being read as text and listed in
   * `jsonReadAsText`.
   */
  readonly strict?: boolean;
  /**
   * Confines the load to this directory (a batch's or a queue's `--context-root`): `file` must
   * be a regular file and `directory` a directory under it once symbolic links are resolved,
   * never in `/proc`, `/sys` or `/dev`; links found in the directory that lead out of it are
   * left out like special files. Unset: any path (the operator's own `--context`).
   */
  readonly root?: ContextRoot;
  /**
   * With `file`: a text file (not `.json`) loads as a `Utf8Text`, its bytes in shared memory,
   * never decoded on the host: the SES sandbox gets them shared and decodes them itself.
   */
  readonly utf8Text?: boolean;
  /** Upper bound on the bytes read, across all text files. */
  readonly maxBytes: number;
  /** The flag a user raises `maxBytes` with, named in the size error. */
  readonly maxBytesFlag?: string;
}

/** One file of a `--context-dir` array. */
export type ContextFileItem =
  | {
      /** Relative to the directory, `/`-separated: `docs/guide.md`. */
      readonly path: string;
      /** The file's text (UTF-8, a leading byte order mark dropped). */
      readonly text: string;
    }
  | {
      readonly path: string;
      /** A `.json` file's parsed value. */
      readonly data: unknown;
    };

/** A `.json` file that did not parse, read as text. */
export interface JsonReadAsText {
  /** As the user named it: joined onto `directory`, or the `file` itself. */
  readonly path: string;
  /** Where and why it did not parse: `line 3, column 5: ...`. */
  readonly problem: string;
}

/** A loaded context. */
export interface LoadedContext {
  /** The value the sandbox receives as `context` (a `Utf8Text` for a text file with `utf8Text`). */
  readonly value: unknown;
  /** Files read. */
  readonly files: number;
  /** Bytes read, across all files. */
  readonly bytes: number;
  /**
   * Binary files skipped under a directory, as paths joined onto `directory`, in lexical order.
   * Always empty for one file, and with `strict`.
   */
  readonly binaryFiles: readonly string[];
  /** `.json` files that did not parse and were read as text (never with `strict`). */
  readonly jsonReadAsText: readonly JsonReadAsText[];
}

/**
 * Loads a context from a file or a directory. Every failure rejects with a
 * {@link ContextLoadError} whose message is one line naming the path and what to do; nothing
 * is half-loaded. Resolves to `undefined` when neither `file` nor `directory` is given.
 */
export async function loadContext(options: LoadContextOptions): Promise<LoadedContext | undefined> {
  const { file, directory } = options;
  if (file !== undefined && directory !== undefined) {
    throw new ContextLoadError('give either a context file or a context directory, not both', {
      path: file,
    });
  }
  if (file !== undefined) return loadFile(file, options);
  if (directory !== undefined) return loadDirectory(directory, options);
  return undefined;
}

async function loadFile(given: string, options: LoadContextOptions): Promise<LoadedContext> {
  const file = options.root ? await options.root.confine(given, 'file') : given;
  const stats = await statPath(file);
  if (stats.isDirectory()) {
    const message = `${file} is a directory; use --context-dir ${file} to load its files`;
    throw new ContextLoadError(message, { path: file });
  }
  const entry = { path: file, relativePath: path.basename(file), size: stats.size };
  const limit = byteLimit(options);
  limit.reserve([entry]);
  if (options.utf8Text && path.extname(file).toLowerCase() !== '.json') {
    const value = await readContextFileAsUtf8Text(entry, limit);
    return { value, files: 1, bytes: limit.used, binaryFiles: [], jsonReadAsText: [] };
  }
  const text = await readContextFile(entry, limit);
  const content = decodeContent(entry, text, options.strict ?? false, '');
  return {
    value: content.kind === 'json' ? content.data : text,
    files: 1,
    bytes: limit.used,
    binaryFiles: [],
    jsonReadAsText: content.kind === 'text' && content.problem ? [content.problem] : [],
  };
}

async function loadDirectory(given: string, options: LoadContextOptions): Promise<LoadedContext> {
  const directory = options.root ? await options.root.confine(given, 'directory') : given;
  const stats = await statPath(directory);
  if (!stats.isDirectory()) {
    const message = `${directory} is not a directory; use --context ${directory} to load one file`;
    throw new ContextLoadError(message, { path: directory });
  }
  const walk = await walkContextDirectory(directory, {
    filter: pathFilter(directory, options),
    gitignore: options.gitignore ?? true,
    defaultExcludes: options.defaultExcludes ?? true,
    ...(options.root ? { within: options.root } : {}),
  });
  const limit = byteLimit(options);
  await reserveText(walk.files, limit);
  const slicer = new TimeSlicer();
  const parts: (ContextFileItem | string)[] = [];
  const binaryFiles: string[] = [];
  const jsonReadAsText: JsonReadAsText[] = [];
  let special = 0;
  for (const entry of walk.files) {
    await slicer.pause();
    const content = readWalkedFileSync(entry, limit);
    if (content.kind === 'special') {
      special++;
    } else if (content.kind === 'binary') {
      if (options.strict) {
        throw new ContextLoadError(
          `${entry.path} is a binary file (not UTF-8 text); leave it out with --exclude <glob>, or drop --strict to skip binary files`,
          { path: entry.path },
        );
      }
      binaryFiles.push(entry.path);
    } else if (options.concat) {
      parts.push(concatSection(entry, content.text));
    } else {
      const decoded = decodeContent(
        entry,
        content.text,
        options.strict ?? false,
        ', leave it out with --exclude <glob>',
      );
      if (decoded.kind === 'json') parts.push({ path: entry.relativePath, data: decoded.data });
      else {
        if (decoded.problem) jsonReadAsText.push(decoded.problem);
        parts.push({ path: entry.relativePath, text: content.text });
      }
    }
  }
  if (parts.length === 0) {
    const skipped = describeSkipped(walk, binaryFiles.length, special);
    throw new ContextLoadError(`${directory} has no files to load (${skipped})`, {
      path: directory,
    });
  }
  const loaded = { files: parts.length, bytes: limit.used, binaryFiles, jsonReadAsText };
  if (!options.concat) return { value: parts, ...loaded };
  try {
    return { value: parts.join('\n'), ...loaded };
  } catch (error) {
    throw new ContextLoadError(
      `the files of ${directory} joined are too large for one JavaScript string; drop --concat to load them as an array`,
      { path: directory, cause: error },
    );
  }
}

function byteLimit(options: LoadContextOptions): ByteLimit {
  return new ByteLimit(options.maxBytes, options.maxBytesFlag ?? '--max-context-bytes');
}

function pathFilter(directory: string, options: LoadContextOptions) {
  try {
    return createContextPathFilter({
      include: options.include ?? [],
      exclude: options.exclude ?? [],
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ContextLoadError(message, { path: directory, cause: error });
  }
}

/**
 * Fails before reading when the text files alone are over the limit. Only when all the files
 * together are over it are their first bytes read, to leave binary files out of the count.
 */
async function reserveText(files: readonly ContextFile[], limit: ByteLimit): Promise<void> {
  if (limit.fits(files.reduce((sum, file) => sum + file.size, 0))) return;
  const slicer = new TimeSlicer();
  const text: ContextFile[] = [];
  for (const file of files) {
    await slicer.pause();
    if (!startsLikeBinarySync(file)) text.push(file);
  }
  limit.reserve(text);
}

/** Why a directory gave no file: the counts of what was left out, and the flags to change. */
function describeSkipped(walk: WalkResult, binary: number, replaced: number): string {
  const { byDefault, byGitignore, byExclude, notIncluded } = walk.skipped;
  const special = walk.skipped.special + replaced;
  const reasons = [
    [binary, 'binary'],
    [notIncluded, 'not matching --include'],
    [byExclude, 'matching --exclude'],
    [byGitignore, 'ignored by .gitignore (--no-gitignore reads them)'],
    [byDefault, 'hidden or node_modules (--no-default-excludes reads them)'],
    [special, 'links to directories or special files'],
  ] as const;
  const found = reasons.filter(([count]) => count > 0).map(([count, why]) => `${count} ${why}`);
  return found.length === 0 ? 'it is empty' : `skipped: ${found.join(', ')}`;
}

/** One file's part of a `--concat` context: header line, content, final newline. */
function concatSection(entry: ContextFile, text: string): string {
  const body = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `==> ${entry.relativePath} <==\n${body}`;
}

/** A file's content as the context holds it. */
type DecodedContent =
  | { readonly kind: 'json'; readonly data: unknown }
  | { readonly kind: 'text'; readonly problem?: JsonReadAsText };

/**
 * `.json` files become their parsed value; anything else stays text, and so does a `.json` file
 * that does not parse (JSONC, JSON5), with the problem, unless `strict` makes it an error.
 */
function decodeContent(
  file: ContextFile,
  text: string,
  strict: boolean,
  hint: string,
): DecodedContent {
  if (path.extname(file.path).toLowerCase() !== '.json') return { kind: 'text' };
  try {
    return { kind: 'json', data: JSON.parse(text) };
  } catch (error) {
    const location = locateJsonError(text);
    const reason = location?.reason ?? (error instanceof Error ? error.message : String(error));
    if (!strict) {
      const where =
        location === undefined ? '' : `line ${location.line}, column ${location.column}: `;
      return { kind: 'text', problem: { path: file.path, problem: `${where}${reason}` } };
    }
    const where =
      location === undefined ? '' : ` at line ${location.line}, column ${location.column}`;
    throw new ContextLoadError(
      `${file.path} is not valid JSON${where} (${reason}); fix it${hint}, or drop --strict to read it as text`,
      { path: file.path, cause: error },
    );
  }
}
