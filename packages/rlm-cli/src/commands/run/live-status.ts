/** Where {@link LiveStatus} draws: a terminal stream. */
export interface LiveStatusOutput {
  write(text: string): unknown;
}

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Redraws per second while a status is shown. */
const framesPerSecond = 10;

/**
 * One status line kept at the bottom of a terminal (a spinner, what the run waits on, how long):
 * progress lines are written above it, and it is redrawn after them. `set(undefined)` clears
 * it. Only for a TTY: pipes and `--quiet` get plain lines and no status. Its timer never keeps
 * the process alive.
 */
export class LiveStatus {
  readonly #output: LiveStatusOutput;
  readonly #width: number;
  readonly #now: () => number;
  #text: string | undefined;
  #since = 0;
  #frame = 0;
  #drawn = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(output: LiveStatusOutput, options: { width?: number; now?: () => number } = {}) {
    this.#output = output;
    this.#width = Math.max(options.width ?? 80, 20);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Shows `text`, or clears the line. A line newly shown is drawn at once; a changed text at the
   * next frame (a tenth of a second), so that a run changing it on every host call costs one
   * write a frame, not one per change.
   */
  set(text: string | undefined): void {
    if (text === this.#text) return;
    const shown = this.#text !== undefined;
    this.#text = text;
    if (text === undefined) {
      this.#erase();
      this.#stopTimer();
      return;
    }
    if (shown) return;
    this.#since = this.#now();
    this.#draw();
    this.#timer ??= setInterval(() => this.#draw(), 1000 / framesPerSecond).unref();
  }

  /** Writes whole lines above the status line. */
  write(lines: string): void {
    this.#erase();
    this.#output.write(lines);
    if (this.#text !== undefined) this.#draw();
  }

  /** Clears the line and stops the timer. */
  stop(): void {
    this.set(undefined);
  }

  #draw(): void {
    if (this.#text === undefined) return;
    this.#frame = (this.#frame + 1) % spinnerFrames.length;
    const seconds = ((this.#now() - this.#since) / 1000).toFixed(1);
    const full = `${spinnerFrames[this.#frame]} ${this.#text} · ${seconds} s`;
    const line = full.length > this.#width - 1 ? `${full.slice(0, this.#width - 2)}…` : full;
    this.#output.write(`\r\u001b[2K${line}`);
    this.#drawn = true;
  }

  #erase(): void {
    if (!this.#drawn) return;
    this.#output.write('\r\u001b[2K');
    this.#drawn = false;
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
