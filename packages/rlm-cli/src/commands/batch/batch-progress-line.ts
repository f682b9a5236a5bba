import type { BatchCommandIo } from './batch-command-io.js';
import { type BatchProgress, formatBatchProgress } from './format-batch-progress.js';

/**
 * Where a batch writes its lines on stderr: when `live`, a progress line is kept at the bottom
 * (redrawn each second while {@link start}ed, and after every line written above it); otherwise
 * plain lines only.
 */
export class BatchProgressLine {
  readonly #stderr: BatchCommandIo['stderr'];
  readonly #live: boolean;
  readonly #progress: () => BatchProgress;
  #shown = false;

  constructor(stderr: BatchCommandIo['stderr'], live: boolean, progress: () => BatchProgress) {
    this.#stderr = stderr;
    this.#live = live;
    this.#progress = progress;
  }

  /** Whether a progress line is drawn at all. */
  get live(): boolean {
    return this.#live;
  }

  /** Redraws the line each second until the returned function is called. */
  start(): () => void {
    if (!this.#live) return () => {};
    const ticker = setInterval(() => this.show(), 1000);
    ticker.unref();
    return () => clearInterval(ticker);
  }

  /** One line, above the progress line. */
  line(text: string): void {
    this.clear();
    this.#stderr.write(`${text}\n`);
    this.show();
  }

  /** Draws the progress line, as wide as the terminal allows. */
  show(): void {
    if (!this.#live) return;
    const line = `rlm batch: ${formatBatchProgress(this.#progress())}`;
    const width = this.#stderr.columns || 120;
    this.#stderr.write(`\r\u001b[2K${line.slice(0, Math.max(10, width - 1))}`);
    this.#shown = true;
  }

  /** Erases the progress line if it is drawn. */
  clear(): void {
    if (!this.#shown) return;
    this.#stderr.write('\r\u001b[2K');
    this.#shown = false;
  }
}
