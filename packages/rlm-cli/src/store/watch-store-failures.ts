import { formatErrorLine } from '@rlm/core';
import type { ArtifactStore } from '@rlm/core';

/** One failed write to the artifact store during a run. */
export interface StoreFailure {
  /** The store method that failed: `store`, `put` or `saveCheckpoint`. */
  readonly operation: string;
  /** The error's message, without the package prefix. */
  readonly message: string;
}

/** Writes whose failure means the run's promised state was not kept. */
const writes = new Set<PropertyKey>(['store', 'put', 'saveCheckpoint']);

/** Errors that are the caller's doing (bad values, names taken), not the store failing. */
const callerErrors = new Set([
  'ArtifactValueError',
  'ArtifactConflictError',
  'ArtifactNotFoundError',
  'BatchArtifactQuotaError',
]);

/**
 * Watches an artifact store for failed writes: `wrap(store)` returns a view of it (scoped views
 * included) that reports each failed `store`, `put` and `saveCheckpoint` and still rejects as
 * before. Errors that are the caller's (a value that is not JSON, a record name taken) are not
 * failures of the store. `onFirst` runs once per {@link StoreFailureWatch.take} period.
 */
export class StoreFailureWatch {
  readonly #onFirst: (failure: StoreFailure) => void;
  #failures: StoreFailure[] = [];

  constructor(onFirst: (failure: StoreFailure) => void) {
    this.#onFirst = onFirst;
  }

  /** The failures since the last call, oldest first; starts a new period. */
  take(): readonly StoreFailure[] {
    const failures = this.#failures;
    this.#failures = [];
    return failures;
  }

  wrap(store: ArtifactStore): ArtifactStore {
    return new Proxy(store, {
      get: (target, property) => {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'scoped') {
          return (scope: string) => this.wrap(target.scoped(scope));
        }
        if (!writes.has(property)) return value.bind(target);
        return async (...parameters: unknown[]) => {
          try {
            return await value.apply(target, parameters);
          } catch (error) {
            this.#record(String(property), error);
            throw error;
          }
        };
      },
    });
  }

  #record(operation: string, error: unknown): void {
    if (error instanceof Error && callerErrors.has(error.name)) return;
    const failure = { operation, message: formatErrorLine(error) };
    this.#failures.push(failure);
    if (this.#failures.length === 1) this.#onFirst(failure);
  }
}
