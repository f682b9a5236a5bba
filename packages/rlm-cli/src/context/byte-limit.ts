import type { ContextFile } from './context-file.js';
import { ContextLoadError } from '../context-load-error.js';
import { formatBytes } from '../output/format-bytes.js';

/**
 * Counts a context's bytes against the `--max-context-bytes` limit: sizes known up front fail
 * before anything is read, bytes read are counted as they arrive (pipes and growing files
 * have no reliable size).
 */
export class ByteLimit {
  /** Bytes counted so far. */
  used = 0;
  readonly #max: number;
  readonly #flag: string;

  /** `max` in bytes; `flag` is named in the error as the way to raise it. */
  constructor(max: number, flag: string) {
    this.#max = max;
    this.#flag = flag;
  }

  /** Whether `bytes` fit under the limit. */
  fits(bytes: number): boolean {
    return bytes <= this.#max;
  }

  /** Fails when the files' `stat` sizes alone exceed the limit. */
  reserve(files: readonly ContextFile[]): void {
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (this.fits(total)) return;
    const what = files.length === 1 ? files[0]!.path : `${files.length} files`;
    this.#fail(`the context is ${formatBytes(total)} (${what})`, files[0]!.path);
  }

  /** Counts bytes read from `file`; fails once the total passes the limit. */
  add(bytes: number, file: string): void {
    this.used += bytes;
    if (this.used > this.#max) this.#fail(`the context grew while reading ${file}`, file);
  }

  /** Takes back bytes counted for a file that was then left out (a binary file). */
  release(bytes: number): void {
    this.used -= bytes;
  }

  #fail(what: string, file: string): never {
    throw new ContextLoadError(
      `${what}, over the ${formatBytes(this.#max)} limit; raise it with ${this.#flag} <bytes>`,
      { path: file, tooLarge: true },
    );
  }
}
