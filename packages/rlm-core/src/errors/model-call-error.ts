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

/**
 * A setting of a model adapter that a failure's message tells the user to change:
 * `timeoutMs` (time allowed for one attempt), `maxRetries` (retries of a transient fault),
 * `maxRetryAfterMs` (longest `retry-after` wait honoured), `maxResponseBytes` (the largest
 * response read), `baseURL` (where the API is served; a message names it as `the baseURL
 * setting`). A CLI maps each to its own flag.
 */
export type ModelCallSetting =
  | 'timeoutMs'
  | 'maxRetries'
  | 'maxRetryAfterMs'
  | 'maxResponseBytes'
  | 'baseURL';

/** A model call failed and will not be retried (or retries ran out). */
export class ModelCallError extends RlmError {
  /** HTTP status, when the provider answered. */
  readonly status: number | undefined;
  /** Whether the fault was transient (rate limit, overload, network) and retries ran out. */
  readonly retryable: boolean;
  /** Why the call failed, as the adapter classified it. */
  readonly reason: ModelCallErrorReason;
  /**
   * The adapter settings the message names, by their exact setting names, in the order they
   * appear; empty when no setting would help. A front end that exposes them under other names
   * (CLI flags) may replace each name in the message with its own.
   */
  readonly settings: readonly ModelCallSetting[];

  constructor(
    message: string,
    options: {
      status?: number;
      retryable?: boolean;
      reason?: ModelCallErrorReason;
      settings?: readonly ModelCallSetting[];
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.reason = options.reason ?? 'unknown';
    this.settings = options.settings ?? [];
  }

  static override isInstance(error: unknown): error is ModelCallError {
    return hasErrorName(error, 'ModelCallError');
  }
}
