import type { VariableSyncReason } from './events.js';
import type { Sandbox, VariableInfo } from './sandbox.js';
import { Utf8Text } from './utf8-text.js';

/** Timeout and retries of listing a sandbox's variables (the loop's variable sync). */
export interface VariableSyncSettings {
  /** Time one listing attempt may take, in ms. Default 5,000. */
  readonly timeoutMs?: number;
  /** Attempts after the first. Default 3. */
  readonly retries?: number;
  /** First backoff delay in ms, doubled each retry. Default 50. */
  readonly backoffMs?: number;
}

export type { VariableSyncReason };

/** The last known listing of a sandbox's variables. */
export interface VariableSnapshot {
  /** Sorted by name. */
  readonly variables: readonly VariableInfo[];
  /** The call iteration the listing was taken at. */
  readonly iteration: number;
  /** When the listing was taken (ms since the epoch); 0 before the first sync. */
  readonly syncedAt: number;
  /** `stale` when the last sync failed and this listing is older than the sandbox's state. */
  readonly freshness: 'fresh' | 'stale';
}

/** The outcome of one {@link VariableSpace.sync}. */
export type VariableSyncOutcome =
  | { readonly ok: true; readonly snapshot: VariableSnapshot }
  | {
      readonly ok: false;
      readonly snapshot: VariableSnapshot;
      readonly message: string;
      /** Attempts after the first. */
      readonly retries: number;
      /** Whether the last attempt timed out. */
      readonly timedOut: boolean;
    };

/**
 * The one host-side API over a sandbox's variables: inject, read, and a cached listing that
 * `sync` refreshes with a timeout and bounded retries. When every attempt fails, the previous
 * listing is kept and marked stale.
 */
export class VariableSpace {
  readonly #sandbox: Sandbox;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffMs: number;
  #snapshot: VariableSnapshot = { variables: [], iteration: 0, syncedAt: 0, freshness: 'stale' };

  constructor(sandbox: Sandbox, settings: VariableSyncSettings = {}) {
    this.#sandbox = sandbox;
    this.#timeoutMs = settings.timeoutMs ?? 5_000;
    this.#retries = settings.retries ?? 3;
    this.#backoffMs = settings.backoffMs ?? 50;
  }

  /** Sets one variable (read-only to model code when `readOnly`). */
  inject(name: string, value: unknown, readOnly = false): Promise<void> {
    return this.injectAll({ [name]: value }, readOnly);
  }

  /**
   * Sets several variables at once. A `Utf8Text` value goes as it is to a sandbox that
   * `acceptsUtf8Text`, as its string to others.
   */
  injectAll(values: Readonly<Record<string, unknown>>, readOnly = false): Promise<void> {
    const sandbox = this.#sandbox;
    const given = sandbox.acceptsUtf8Text
      ? values
      : Object.fromEntries(
          Object.entries(values).map(([name, value]) => [
            name,
            Utf8Text.isInstance(value) ? value.text() : value,
          ]),
        );
    return sandbox.setVariables(given, { readOnly });
  }

  /** A variable's value (a structured clone). Rejects when it is undefined or not cloneable. */
  read(name: string): Promise<unknown> {
    return this.#sandbox.getVariable(name);
  }

  /** The last listing, without asking the sandbox. */
  get cached(): VariableSnapshot {
    return this.#snapshot;
  }

  /** Refreshes the listing. Never rejects: a failure keeps the old listing, marked stale. */
  async sync(iteration: number): Promise<VariableSyncOutcome> {
    let lastError: unknown;
    let timedOut = false;
    for (let attempt = 0; attempt <= this.#retries; attempt += 1) {
      if (attempt > 0) await sleep(this.#backoffMs * 2 ** (attempt - 1));
      try {
        const variables = await withTimeout(this.#sandbox.listVariables(), this.#timeoutMs);
        this.#snapshot = { variables, iteration, syncedAt: Date.now(), freshness: 'fresh' };
        return { ok: true, snapshot: this.#snapshot };
      } catch (error) {
        lastError = error;
        timedOut = error instanceof SyncTimeout;
      }
    }
    this.#snapshot = { ...this.#snapshot, freshness: 'stale' };
    return {
      ok: false,
      snapshot: this.#snapshot,
      message: lastError instanceof Error ? lastError.message : String(lastError),
      retries: this.#retries,
      timedOut,
    };
  }
}

/** Formats a listing for a prompt: one line a variable, with size and preview. */
export function formatVariables(snapshot: VariableSnapshot): string {
  if (snapshot.variables.length === 0) return '(none)';
  const lines = snapshot.variables.map(
    (variable) =>
      `- ${variable.name} (${variable.type}, size ${variable.size}): ${variable.preview}`,
  );
  if (snapshot.freshness === 'stale') {
    lines.unshift(
      `(stale: this listing is from iteration ${snapshot.iteration}; the sandbox could not be read since)`,
    );
  }
  return lines.join('\n');
}

class SyncTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new SyncTimeout(`listing variables took longer than ${ms} ms`)),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
