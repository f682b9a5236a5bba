import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { roundCosts } from './round-costs.js';
import { UsageError } from './usage-error.js';

/**
 * Where a batch writes its results: one JSON line per job, each written whole with one
 * synchronous append as the job ends, so a batch killed at any point keeps every line it wrote
 * (a line cut short by the kill is ignored by the rerun).
 */
export class BatchResultsFile {
  readonly #write: (line: string) => void;
  readonly #close: () => void;

  private constructor(write: (line: string) => void, close: () => void) {
    this.#write = write;
    this.#close = close;
  }

  /**
   * Opens `file` for appending (creating it and its directory), after a newline when an
   * earlier batch was killed mid-line (`endsMidLine`). Without `file`, results go to `stdout`.
   * Throws a {@link UsageError} when the file cannot be opened.
   */
  static open(
    file: string | undefined,
    endsMidLine: boolean,
    stdout: NodeJS.WritableStream,
  ): BatchResultsFile {
    if (file === undefined) {
      return new BatchResultsFile(
        (line) => stdout.write(line),
        () => {},
      );
    }
    let descriptor: number;
    try {
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      descriptor = openSync(file, 'a');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new UsageError(`cannot write the results to --out ${file}: ${reason}`, {
        cause: error,
      });
    }
    if (endsMidLine) writeSync(descriptor, '\n');
    return new BatchResultsFile(
      (line) => {
        writeSync(descriptor, line);
      },
      () => closeSync(descriptor),
    );
  }

  /**
   * Appends `record` as one JSON line, costs rounded to nano-dollars (see `roundCost`). Throws
   * when the file cannot be written.
   */
  append(record: object): void {
    this.#write(`${JSON.stringify(record, roundCosts)}\n`);
  }

  /** Closes the file. */
  close(): void {
    this.#close();
  }
}
