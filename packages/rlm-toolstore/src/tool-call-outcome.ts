import type { FailureClass } from './classify-failure.js';

/**
 * Where the code of a call came from: the store as it was (`persisted`), freshly written by
 * the model (`generated`), or rewritten from a failing persisted version (`repaired`).
 */
export type ProgramSource = 'persisted' | 'generated' | 'repaired';

interface OutcomeBase {
  readonly programSource: ProgramSource;
  /**
   * The generation that ran: `artifact.generation_id` from `select`, or from the artifact
   * `persistGeneration` returned. The method's counts and health change only when this is
   * its current generation; fresh code that failed and was never persisted leaves them alone.
   */
  readonly generationId?: string;
  /** Wall time of the call, in milliseconds. Logged only. */
  readonly durationMs?: number;
}

/** What happened when the loop ran a method. */
export type ToolCallOutcome =
  | (OutcomeBase & { readonly ok: true })
  | (OutcomeBase & {
      readonly ok: false;
      /** The sandbox's error line, an `Error`, or a `FailureInfo`. */
      readonly error: unknown;
      /** Overrides `classifyFailure(error)` when the caller knows better. */
      readonly failureClass?: FailureClass;
    });
