/**
 * Whether model code is running, and whether an ending function (`SUBMIT`) ended it: what the
 * worker's timers, host calls and output ask before they act.
 */
export class ExecutionStatus {
  #executing = false;
  #ended = false;
  #endReached: Promise<undefined> = Promise.resolve(undefined);
  #reachEnd: () => void = () => {};

  /** Whether an execution is running (even one an ending function ended, still unwinding). */
  get executing(): boolean {
    return this.#executing;
  }

  /**
   * Set once an ending function is called: the execution is over for everything but the code
   * still unwinding (see `SandboxOptions.endingFunctions`).
   */
  get ended(): boolean {
    return this.#ended;
  }

  /** Whether the running execution may still act: it runs and no ending function ended it. */
  get active(): boolean {
    return this.#executing && !this.#ended;
  }

  /** Resolves when an ending function ends the running execution. */
  get endReached(): Promise<undefined> {
    return this.#endReached;
  }

  begin(): void {
    this.#executing = true;
    this.#ended = false;
    this.#endReached = new Promise((resolve) => {
      this.#reachEnd = () => resolve(undefined);
    });
  }

  /** An ending function was called. */
  end(): void {
    this.#ended = true;
    this.#reachEnd();
  }

  finish(): void {
    this.#executing = false;
  }
}
