import type { DurableToolEvent } from '@rlm/core';

/** One line of a tally: its kind decides how it is drawn. */
export interface ToolActivityLine {
  readonly kind: 'reused' | 'saved' | 'failed';
  readonly text: string;
}

interface MethodTally {
  reused: number;
  /** Generation ids that ran, in order of first use. */
  readonly reusedGenerations: string[];
  readonly saved: { readonly generationId: string; readonly repaired: boolean }[];
  failed: number;
  firstError: string | undefined;
  retried: boolean;
}

/**
 * The durable-tool activity of one code block, per method, for progress output: how many calls
 * reused persisted code, which generations were saved, how many failed and the first error.
 * While the model writes a method's code, {@link ToolActivityTally.writing} names it for the
 * status line.
 */
export class ToolActivityTally {
  readonly #methods = new Map<string, MethodTally>();
  #writing: string | undefined;

  /** Counts one `durable-tool` event. */
  add(event: DurableToolEvent): void {
    const name = `${event.role}.${event.method}`;
    if (event.activity === 'writing') {
      this.#writing = `tool ${name} · ${event.source === 'repaired' ? 'repairing' : 'writing'} code`;
      return;
    }
    this.#writing = undefined;
    let tally = this.#methods.get(name);
    if (!tally) {
      tally = {
        reused: 0,
        reusedGenerations: [],
        saved: [],
        failed: 0,
        firstError: undefined,
        retried: false,
      };
      this.#methods.set(name, tally);
    }
    switch (event.activity) {
      case 'reused':
        tally.reused += 1;
        if (event.generationId && !tally.reusedGenerations.includes(event.generationId)) {
          tally.reusedGenerations.push(event.generationId);
        }
        return;
      case 'saved':
        tally.saved.push({
          generationId: event.generationId ?? 'a new generation',
          repaired: event.source === 'repaired',
        });
        return;
      case 'failed':
        tally.failed += 1;
        tally.firstError ??= event.error ? `${event.error.name}: ${event.error.message}` : 'failed';
        tally.retried ||= event.retry === true;
        return;
    }
  }

  /** What the status line shows while a method's code is being written, else `undefined`. */
  get writing(): string | undefined {
    return this.#writing;
  }

  /** Whether anything but writing was counted. */
  get isEmpty(): boolean {
    return this.#methods.size === 0;
  }

  /**
   * The block's summary, methods in order of first activity: failures first (with the first
   * error, and whether the code was rewritten), then saved generations, then reuse counts.
   */
  lines(): ToolActivityLine[] {
    const lines: ToolActivityLine[] = [];
    for (const [name, tally] of this.#methods) {
      if (tally.failed > 0) {
        const times = tally.failed > 1 ? ` ×${tally.failed}` : '';
        const then = tally.retried ? ' (the code was rewritten)' : '';
        lines.push({
          kind: 'failed',
          text: `tool ${name} failed${times}: ${tally.firstError}${then}`,
        });
      }
      for (const saved of tally.saved) {
        lines.push({
          kind: 'saved',
          text: `tool ${name} saved ${saved.generationId} (${saved.repaired ? 'repaired' : 'new'} code)`,
        });
      }
      if (tally.reused > 0) {
        const times = tally.reused > 1 ? ` ×${tally.reused}` : '';
        const generations =
          tally.reusedGenerations.length > 0 ? ` ${tally.reusedGenerations.join(', ')}` : '';
        lines.push({ kind: 'reused', text: `tool ${name} reused${generations}${times}` });
      }
    }
    return lines;
  }
}
