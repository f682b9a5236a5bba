import type { Dirent, Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ContextLoadError } from './context-load-error.js';
import { formatBytes } from './format-bytes.js';
import { locateJsonError } from './locate-json-error.js';

/** Where the context comes from. Give `file` or `directory`, not both. */
export interface LoadContextOptions {
  /** One file: `.json` is parsed, anything else is read as a UTF-8 string. */
  readonly file?: string;
  /**
   * A directory, walked recursively. Hidden entries (names starting with `.`), symbolic links
   * to directories and special files are skipped; files are taken in lexical order of their
   * `/`-separated relative paths.
   */
  readonly directory?: string;
  /**
   * With `directory`: one string joining every file as text, each introduced by a header line
   * `==> relative/path <==` and separated by a blank line. Without it, an array of the files'
   * contents (parsed for `.json`, strings otherwise).
   */
  readonly concat?: boolean;
  /** Upper bound on the bytes read, across all files. */
  readonly maxBytes: number;
  /** The flag a user raises `maxBytes` with, named in the size error. */
  readonly maxBytesFlag?: string;
}

/** A loaded context. */
export interface LoadedContext {
  /** The value the sandbox receives as `context`. */
  readonly value: unknown;
  /** Files read. */
  readonly files: number;
  /** Bytes read, across all files. */
  readonly bytes: number;
}

interface ContextFile {
  /** The path as the user can find it (joined onto what they typed). */
  readonly path: string;
  /** The `/`-separated path relative to the directory (the base name for `--context`). */
  readonly relativePath: string;
  /** Size reported by `stat`; 0 for pipes and other streams. */
  readonly size: number;
}

const readChunkBytes = 1 << 20;

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

async function loadFile(file: string, options: LoadContextOptions): Promise<LoadedContext> {
  const stats = await statPath(file);
  if (stats.isDirectory()) {
    const message = `${file} is a directory; use --context-dir ${file} to load its files`;
    throw new ContextLoadError(message, { path: file });
  }
  const entry = { path: file, relativePath: path.basename(file), size: stats.size };
  const limit = new ByteLimit(options);
  limit.reserve([entry]);
  const text = await readText(entry, limit);
  return { value: decodeContent(entry, text), files: 1, bytes: limit.used };
}

async function loadDirectory(
  directory: string,
  options: LoadContextOptions,
): Promise<LoadedContext> {
  const stats = await statPath(directory);
  if (!stats.isDirectory()) {
    const message = `${directory} is not a directory; use --context ${directory} to load one file`;
    throw new ContextLoadError(message, { path: directory });
  }
  const entries = await listFiles(directory);
  if (entries.length === 0) {
    throw new ContextLoadError(
      `${directory} has no files to load (hidden files and links to directories are skipped)`,
      { path: directory },
    );
  }
  const limit = new ByteLimit(options);
  limit.reserve(entries);
  const parts: unknown[] = [];
  for (const entry of entries) {
    const text = await readText(entry, limit);
    parts.push(options.concat ? concatSection(entry, text) : decodeContent(entry, text));
  }
  if (!options.concat) return { value: parts, files: entries.length, bytes: limit.used };
  try {
    return { value: parts.join('\n'), files: entries.length, bytes: limit.used };
  } catch (error) {
    throw new ContextLoadError(
      `the files of ${directory} joined are too large for one JavaScript string; drop --concat to load them as an array`,
      { path: directory, cause: error },
    );
  }
}

/** One file's part of a `--concat` context: header line, content, final newline. */
function concatSection(entry: ContextFile, text: string): string {
  const body = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `==> ${entry.relativePath} <==\n${body}`;
}

/** Every loadable file under `directory`, sorted by relative path. */
async function listFiles(directory: string): Promise<ContextFile[]> {
  const files: ContextFile[] = [];
  const walk = async (relativeDirectory: string): Promise<void> => {
    const absolute = path.join(directory, relativeDirectory);
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      throw fileSystemError(absolute, error);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const relativePath =
        relativeDirectory === '' ? entry.name : `${relativeDirectory}/${entry.name}`;
      const entryPath = path.join(directory, relativePath);
      if (entry.isDirectory()) {
        await walk(relativePath);
        continue;
      }
      const target = entry.isSymbolicLink() ? await statPath(entryPath) : undefined;
      if (entry.isFile() || target?.isFile()) {
        files.push({
          path: entryPath,
          relativePath,
          size: (target ?? (await statPath(entryPath))).size,
        });
      }
    }
  };
  await walk('');
  return files.sort((left, right) => compareCodeUnits(left.relativePath, right.relativePath));
}

function compareCodeUnits(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

/** Tracks bytes against the limit: sizes known up front fail before anything is read. */
class ByteLimit {
  used = 0;
  readonly #max: number;
  readonly #flag: string;

  constructor(options: LoadContextOptions) {
    this.#max = options.maxBytes;
    this.#flag = options.maxBytesFlag ?? '--max-context-bytes';
  }

  /** Fails when the files' `stat` sizes alone exceed the limit. */
  reserve(files: readonly ContextFile[]): void {
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total <= this.#max) return;
    const what = files.length === 1 ? files[0]!.path : `${files.length} files`;
    this.#fail(`the context is ${formatBytes(total)} (${what})`, files[0]!.path);
  }

  /** Counts bytes as they are read (pipes and growing files have no reliable size). */
  add(bytes: number, file: string): void {
    this.used += bytes;
    if (this.used > this.#max) this.#fail(`the context grew while reading ${file}`, file);
  }

  #fail(what: string, file: string): never {
    throw new ContextLoadError(
      `${what}, over the ${formatBytes(this.#max)} limit; raise it with ${this.#flag} <bytes>`,
      { path: file },
    );
  }
}

/** Reads a whole file as strict UTF-8 (a leading byte order mark is dropped). */
async function readText(file: ContextFile, limit: ByteLimit): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    const handle = await open(file.path, 'r');
    try {
      while (true) {
        const chunk = Buffer.allocUnsafe(readChunkBytes);
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        limit.add(bytesRead, file.path);
        chunks.push(chunk.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (ContextLoadError.isInstance(error)) throw error;
    throw fileSystemError(file.path, error);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch (error) {
    const invalid = (error as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
    throw new ContextLoadError(
      invalid
        ? `${file.path} is not valid UTF-8 text; convert it to UTF-8 or leave it out of the context`
        : `${file.path} is too large for one JavaScript string; split it into parts and load them with --context-dir`,
      { path: file.path, cause: error },
    );
  }
}

/** `.json` files become their parsed value; anything else stays a string. */
function decodeContent(file: ContextFile, text: string): unknown {
  if (path.extname(file.path).toLowerCase() !== '.json') return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    const location = locateJsonError(text);
    const where =
      location === undefined ? '' : ` at line ${location.line}, column ${location.column}`;
    const reason = location?.reason ?? (error instanceof Error ? error.message : String(error));
    throw new ContextLoadError(
      `${file.path} is not valid JSON${where} (${reason}); fix it, or rename it to load it as text`,
      { path: file.path, cause: error },
    );
  }
}

async function statPath(target: string): Promise<Stats> {
  try {
    return await stat(target);
  } catch (error) {
    throw fileSystemError(target, error);
  }
}

/** Turns a Node file system error into one readable line. */
function fileSystemError(target: string, error: unknown): ContextLoadError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === 'ENOENT'
      ? `${target} does not exist`
      : code === 'EACCES' || code === 'EPERM'
        ? `cannot read ${target}: permission denied`
        : code === 'ENOTDIR'
          ? `${target} does not exist (a parent is not a directory)`
          : code === 'ELOOP'
            ? `cannot read ${target}: too many levels of symbolic links`
            : code === 'EISDIR'
              ? `${target} is a directory; use --context-dir ${target} to load its files`
              : `cannot read ${target}: ${error instanceof Error ? error.message : String(error)}`;
  return new ContextLoadError(message, { path: target, cause: error });
}
