/**
 * What model code writes: `print`/`console`, the last expression's value and uncaught errors,
 * into the output buffer shared with the host, only while its execution is active.
 */
import type { OutputBuffer } from '@rlm/core/sandbox-support';
import { describeGuestError } from './describe-guest-error.js';
import type { ExecutionStatus } from './execution-status.js';
import { formatValue } from './format-value.js';

export class GuestOutput {
  readonly #buffer: OutputBuffer;
  readonly #status: ExecutionStatus;
  /** Lines of the code running now: frames past them are the wrapper's. */
  #codeLines = 0;

  constructor(buffer: OutputBuffer, status: ExecutionStatus) {
    this.#buffer = buffer;
    this.#status = status;
  }

  /** Empties the buffer for an execution of `code`. */
  reset(code: string): void {
    this.#buffer.reset();
    this.#codeLines = code.split('\n').length;
  }

  /** The guest's `print` and `console` methods. */
  print(args: unknown[]): void {
    if (!this.#status.active) return;
    const parts: string[] = [];
    for (const arg of args) {
      parts.push(
        typeof arg === 'string' ? arg : formatValue(arg, { maxLength: this.#buffer.remaining + 1 }),
      );
    }
    this.#write(`${parts.join(' ')}\n`);
  }

  /** Writes the value of the code's last expression. */
  writeValue(value: unknown): void {
    if (typeof value === 'string') {
      this.#write(value);
      return;
    }
    this.#write(formatValue(value, { maxLength: this.#buffer.remaining + 1 }));
  }

  reportUncaught(label: string, reason: unknown): void {
    this.#write(`${label}: ${this.describeError(reason)}\n`);
  }

  /** One readable line, then the running code's own stack frames. */
  describeError(thrown: unknown): string {
    return describeGuestError(thrown, this.#codeLines);
  }

  #write(text: string): void {
    if (!this.#status.active) return;
    this.#buffer.write(text);
  }
}
