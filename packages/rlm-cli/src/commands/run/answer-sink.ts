import { escapeControlCharacters } from '@rlm/core';
import { constants } from 'node:fs';
import { access, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type JsonRunReport, formatAnswer, formatJsonReport } from '../../output/format-answer.js';
import { formatBytes } from '../../output/format-bytes.js';
import { type JsonFailureReport, formatJsonFailure } from '../../output/json-failure-report.js';
import { UsageError } from '../../usage-error.js';

/** Where and how answers are written. */
export interface AnswerSinkOptions {
  /** `--json`: one JSON object per query (a success or a failure) instead of the bare answer. */
  readonly json: boolean;
  /** `--out`: the file answers go to instead of stdout. */
  readonly outFile: string | undefined;
  /** `--quiet`: no "written to" notes on stderr. */
  readonly quiet: boolean;
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
}

/**
 * The answers of one invocation, in query order: on stdout, or in the `--out` file, which the
 * first answer replaces and each later one is appended to (so piped queries keep every answer,
 * as stdout would). With `--json` each query gives one line, a failed one too; without it a
 * failure writes nothing here (its line goes to stderr).
 */
export class AnswerSink {
  readonly #options: AnswerSinkOptions;
  /** Whether the out file was started by this invocation (later answers append). */
  #started = false;

  private constructor(options: AnswerSinkOptions) {
    this.#options = options;
  }

  /**
   * Checks that the `--out` file can be written (creating its directory) before any model is
   * called. Rejects with a one-line {@link UsageError} when it is a directory or not writable.
   * Leaves an existing file as it is until the first answer.
   */
  static async open(options: AnswerSinkOptions): Promise<AnswerSink> {
    const { outFile } = options;
    if (outFile !== undefined) await checkWritable(outFile);
    return new AnswerSink(options);
  }

  /** Writes one answer (its JSON report with `--json`). */
  async answer(report: JsonRunReport): Promise<void> {
    const json = this.#options.json;
    await this.#write(json ? formatJsonReport(report) : formatAnswer(report.answer), json);
  }

  /**
   * `text` as it goes to stdout: a terminal is shown the control characters of model-made text
   * instead of acting on them; pipes and `--json` get the exact bytes.
   */
  #forStdout(text: string, json: boolean): string {
    return this.#options.stdout.isTTY && !json ? escapeControlCharacters(text) : text;
  }

  /** Writes one failure's JSON report with `--json`; does nothing without it. */
  async failure(report: JsonFailureReport): Promise<void> {
    if (this.#options.json) await this.#write(formatJsonFailure(report), true);
  }

  async #write(text: string, json: boolean): Promise<void> {
    const { outFile, stdout, stderr, quiet } = this.#options;
    if (outFile === undefined) {
      stdout.write(this.#forStdout(text, json));
      return;
    }
    try {
      await writeFile(outFile, text, { flag: this.#started ? 'a' : 'w' });
      this.#started = true;
    } catch (error) {
      stdout.write(this.#forStdout(text, json));
      throw new Error(
        `cannot write to ${outFile} (${describeWriteError(error)}); the ${json ? 'report' : 'answer'} went to stdout instead`,
        { cause: error },
      );
    }
    if (!quiet) {
      const what = json ? 'JSON report' : 'answer';
      stderr.write(
        `rlm: ${what} written to ${outFile} (${formatBytes(Buffer.byteLength(text))})\n`,
      );
    }
  }
}

async function checkWritable(outFile: string): Promise<void> {
  const resolved = path.resolve(outFile);
  try {
    await mkdir(path.dirname(resolved), { recursive: true });
  } catch (error) {
    throw new UsageError(
      `--out ${outFile}: cannot create its directory (${describeWriteError(error)}); give another path`,
      { cause: error },
    );
  }
  const existing = await stat(resolved).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new UsageError(
      `--out ${outFile} is a directory; give a file path such as ${path.join(outFile, 'answers.txt')}`,
    );
  }
  try {
    await access(existing ? resolved : path.dirname(resolved), constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `--out ${outFile} is not writable (${describeWriteError(error)}); give another path`,
      {
        cause: error,
      },
    );
  }
}

function describeWriteError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'permission denied';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a parent is a file';
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EISDIR') return 'it is a directory';
  return error instanceof Error ? error.message : String(error);
}
