import { RlmError } from '@rlm/core';

/**
 * The HTTP statuses a served request can fail with: 400 bad request, 401 missing or wrong token,
 * 404 unknown model, 413 body or context too large, 429 every run slot taken, 500 the run failed
 * without a model fault, 502 the model API failed, 503 the server is shutting down.
 */
export type ServedRequestStatus = 400 | 401 | 404 | 413 | 429 | 500 | 502 | 503;

/**
 * A request the server answers with an error, in the OpenAI error shape
 * (`{ error: { message, type, param, code } }`) over HTTP and as a tool error over MCP. The
 * message is one line saying what was wrong and what to do; it is sent to the client as is.
 */
export class ServedRequestError extends RlmError {
  /** The HTTP status it is answered with. */
  readonly status: ServedRequestStatus;
  /**
   * The OpenAI error `type`: `invalid_request_error` (400, 401, 404, 413), `rate_limit_error`
   * (429) or `server_error` (500, 502, 503).
   */
  readonly type: string;
  /** A stable machine-readable code, e.g. `model_not_found`, `context_path_outside_root`. */
  readonly code: string;
  /** The request field at fault (`messages`, `model`, `context_paths[0]`), when one is. */
  readonly param: string | undefined;

  constructor(
    message: string,
    options: {
      status: ServedRequestStatus;
      code: string;
      param?: string;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServedRequestError';
    this.status = options.status;
    this.code = options.code;
    this.param = options.param;
    this.type =
      options.status === 429
        ? 'rate_limit_error'
        : options.status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  }

  /**
   * The error a request is answered with: `error` itself when it is a `ServedRequestError`, else
   * a 500 `internal_error` carrying its message.
   */
  static from(error: unknown): ServedRequestError {
    if (ServedRequestError.isInstance(error)) return error;
    return new ServedRequestError(
      `the server failed: ${error instanceof Error ? error.message : String(error)}`,
      { status: 500, code: 'internal_error', cause: error },
    );
  }

  /** True for a `ServedRequestError` from any copy of this package. */
  static override isInstance(error: unknown): error is ServedRequestError {
    return RlmError.isInstance(error) && error.name === 'ServedRequestError';
  }
}
