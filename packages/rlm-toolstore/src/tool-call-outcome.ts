import type { DurableToolOutcome, DurableToolSource } from '@rlm/core';
import type { FailureClass } from './classify-failure.js';

/**
 * Where the code of a call came from (core's `DurableToolSource`): the store as it was
 * (`persisted`), freshly written by the model (`generated`), or rewritten from a failing
 * persisted version (`repaired`).
 */
export type ProgramSource = DurableToolSource;

/**
 * What happened when the loop ran a method: core's `DurableToolOutcome`, whose
 * `generationId` is the generation that ran (`artifact.generation_id` from `select`, or from
 * the artifact `persistGeneration` returned; the method's counts and health change only when
 * it is the current generation). A failure's `error` may also be the sandbox's error line, an
 * `Error` or a `FailureInfo`, and `failureClass` overrides `classifyFailure(error)` when the
 * caller knows better.
 */
export type ToolCallOutcome =
  | Extract<DurableToolOutcome, { readonly ok: true }>
  | (Omit<Extract<DurableToolOutcome, { readonly ok: false }>, 'error'> & {
      readonly error: unknown;
      readonly failureClass?: FailureClass;
    });
