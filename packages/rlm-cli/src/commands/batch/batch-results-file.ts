import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { type AnsweredIds, readAnsweredIds } from './read-answered-ids.js';
import { ResultsFileLock } from './results-file-lock.js';
import { roundCosts } from '../../output/round-costs.js';
import { UsageError } from '../../usage-error.js';

/** What opening a results file found and did. */
export interface ResultsFileOpening {
  /** Keys of the ids answered there before. */
  readonly answered: ReadonlySet<string>;
  /** Bytes of a last line cut short that were removed, if any. */
  readonly removedTornBytes: number;
  /** The pid and host of a gone process whose lock was taken over, if any. */
  readonly tookOverFrom: { readonly pid: number; readonly hostname: string } | undefined;
}

/**
 * Where a batch writes its results: one JSON line per job. In a file (`--out`), one batch at a
 * time (a lock beside it), each line written whole: every byte is checked written, and a write
 * that fails part-way is cut back off the file, so no torn line is ever left behind by a failed
 * write. A line cut short by a kill is removed by the next run. `close` syncs the file to disk.
 */
export class BatchResultsFile {
  readonly #descriptor: number | undefined;
  readonly #stdout: NodeJS.WritableStream;
  readonly #lock: ResultsFileLock | undefined;
  /** The file's size after the last whole line. */
  #size: number;
  #closed = false;

  private constructor(
    descriptor: number | undefined,
    size: number,
    stdout: NodeJS.WritableStream,
    lock: ResultsFileLock | undefined,
  ) {
    this.#descriptor = descriptor;
    this.#size = size;
    this.#stdout = stdout;
    this.#lock = lock;
  }

  /**
   * Opens `file` for appending (creating it and its directory) after taking its lock and reading
   * the ids answered there; a last line cut short is removed, a last line missing only its
   * newline gets one. Without `file`, results go to `stdout`. Throws a {@link UsageError} when
   * another batch writes the file or it cannot be opened.
   */
  static open(
    file: string | undefined,
    stdout: NodeJS.WritableStream,
  ): { readonly results: BatchResultsFile; readonly opening: ResultsFileOpening } {
    if (file === undefined) {
      return {
        results: new BatchResultsFile(undefined, 0, stdout, undefined),
        opening: { answered: new Set(), removedTornBytes: 0, tookOverFrom: undefined },
      };
    }
    const fail = (error: unknown): never => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new UsageError(`cannot write the results to --out ${file}: ${reason}`, {
        cause: error,
      });
    };
    try {
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    } catch (error) {
      fail(error);
    }
    // A device or a pipe (/dev/stdout, a FIFO) is written as it is: nothing to lock or repair.
    if (!isRegularOrAbsent(file)) {
      let descriptor: number | undefined;
      try {
        descriptor = openSync(file, 'a');
      } catch (error) {
        fail(error);
      }
      return {
        results: new BatchResultsFile(descriptor, 0, stdout, undefined),
        opening: { answered: new Set(), removedTornBytes: 0, tookOverFrom: undefined },
      };
    }
    const lock = ResultsFileLock.acquire(file);
    let descriptor: number | undefined;
    try {
      descriptor = openSync(file, 'a+');
      const found: AnsweredIds = readAnsweredIds(readFileSync(descriptor));
      let removedTornBytes = 0;
      if (found.tail.kind === 'torn') {
        ftruncateSync(descriptor, found.tail.keepBytes);
        removedTornBytes = found.tail.tornBytes;
      } else if (found.tail.kind === 'unterminated') {
        writeWhole(descriptor, Buffer.from('\n'));
      }
      const results = new BatchResultsFile(descriptor, fstatSync(descriptor).size, stdout, lock);
      return {
        results,
        opening: {
          answered: found.keys,
          removedTornBytes,
          tookOverFrom: lock.tookOverFrom,
        },
      };
    } catch (error) {
      if (descriptor !== undefined) closeSync(descriptor);
      lock.release();
      return fail(error);
    }
  }

  /**
   * Appends `record` as one JSON line, costs rounded to nano-dollars (see `roundCost`), whole or
   * not at all: throws the file system's error (`ENOSPC`, `EFBIG`, `EIO`, ...) after cutting off
   * what part of the line was written.
   */
  append(record: object): void {
    const line = `${JSON.stringify(record, roundCosts)}\n`;
    if (this.#descriptor === undefined) {
      this.#stdout.write(line);
      return;
    }
    const bytes = Buffer.from(line, 'utf8');
    try {
      writeWhole(this.#descriptor, bytes);
    } catch (error) {
      try {
        if (this.#lock !== undefined) ftruncateSync(this.#descriptor, this.#size);
      } catch {
        // The torn line stays; the next run removes it.
      }
      throw error;
    }
    this.#size += bytes.byteLength;
  }

  /**
   * Syncs the file to disk, closes it and releases its lock; idempotent. Throws the file
   * system's error when the sync fails (the lines may not all be on disk); the file is closed
   * either way.
   */
  close(): void {
    if (this.#descriptor === undefined || this.#closed) return;
    this.#closed = true;
    try {
      if (this.#lock !== undefined) fsyncSync(this.#descriptor);
    } finally {
      closeSync(this.#descriptor);
      this.#lock?.release();
    }
  }
}

function isRegularOrAbsent(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return true;
  }
}

/** Writes every byte, however many writes it takes; throws when a write fails or makes no progress. */
function writeWhole(descriptor: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.byteLength) {
    const count = writeSync(descriptor, bytes, written, bytes.byteLength - written);
    if (count <= 0)
      throw new Error(`the write stopped after ${written} of ${bytes.byteLength} bytes`);
    written += count;
  }
}
