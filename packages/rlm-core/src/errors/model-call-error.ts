import { hasErrorName, RlmError } from './rlm-error.js';

/**
 * Why a model call failed, as a provider adapter classified it. The loop acts on these
 * reasons, never on the wording of a message:
 * - `tools-unsupported`: the provider or model refuses tool definitions (the loop degrades to
 *   the text protocol once).
 * - `authentication`: the credentials were refused.
 * - `rate-limited`: 429 after retries.
 * - `server`: 5xx, overload, or a body that was not the API's JSON, after retries.
 * - `timeout`: no answer within the request timeout, after retries.
 * - `network`: the server could not be reached, after retries.
 * - `invalid-request`: the provider rejected the request (4xx other than the above).
 * - `aborted`: the caller's signal aborted the request.
 * - `unknown`: anything else.
 */
export type ModelCallErrorReason =
  | 'tools-unsupported'
  | 'authentication'
  | 'rate-limited'
  | 'server'
  | 'timeout'
  | 'network'
  | 'invalid-request'
  | 'aborted'
  | 'unknown';

/** A model call failed and will not be retried (or retries ran out). */
export class ModelCallError extends RlmError {
  /** HTTP status, when the provider answered. */
  readonly status: number | undefined;
  /** Whether the fault was transient (rate limit, overload, network) and retries ran out. */
  readonly retryable: boolean;
  /** Why the call failed, as the adapter classified it. */
  readonly reason: ModelCallErrorReason;

  constructor(
    message: string,
    options: {
      status?: number;
      retryable?: boolean;
      reason?: ModelCallErrorReason;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.reason = options.reason ?? 'unknown';
  }

  static override isInstance(error: unknown): error is ModelCallError {
    return hasErrorName(error, 'ModelCallError');
  }
}
