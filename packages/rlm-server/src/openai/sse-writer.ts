/**
 * A `text/event-stream` body written piece by piece: `data:` events and `:` comments, which SSE
 * clients (the `openai` SDKs among them) skip. `cancelled` aborts when the client stops reading.
 */
export class SseWriter {
  readonly body: ReadableStream<Uint8Array>;
  readonly #cancelled = new AbortController();
  readonly #encoder = new TextEncoder();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #lastWrite = 0;

  /** `keepAliveMs`: a `: keep-alive` comment after that much silence (0 for none). */
  constructor(options: { readonly keepAliveMs: number }) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#stop();
        this.#cancelled.abort();
      },
    });
    if (options.keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => {
        if (performance.now() - this.#lastWrite >= options.keepAliveMs) this.comment('keep-alive');
      }, options.keepAliveMs);
      this.#keepAlive.unref?.();
    }
  }

  /** Aborts when the client stops reading (disconnects). */
  get cancelled(): AbortSignal {
    return this.#cancelled.signal;
  }

  /** One `data:` event: `value` as JSON, or a string as is (`[DONE]`). */
  data(value: unknown): void {
    this.#write(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
  }

  /** One comment line; line breaks in `text` become spaces. */
  comment(text: string): void {
    this.#write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  /** Ends the body. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#stop();
    this.#controller.close();
  }

  #write(text: string): void {
    if (this.#closed) return;
    this.#lastWrite = performance.now();
    this.#controller.enqueue(this.#encoder.encode(text));
  }

  #stop(): void {
    this.#closed = true;
    clearInterval(this.#keepAlive);
  }
}
