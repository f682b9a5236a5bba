/** The status the API answers for an error type outside a stream, e.g. 529 for `overloaded_error`. */
const statusOfErrorType: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The Messages API sent an `error` event in the middle of a streamed answer (its status was
 * already 200), e.g. `overloaded_error` when it ran out of capacity while answering.
 */
export class StreamApiError extends Error {
  /** The API's error type, e.g. `overloaded_error`; `error` when the event named none. */
  readonly errorType: string;
  /** The API's message, as sent. */
  readonly apiMessage: string;
  /**
   * The HTTP status the API gives this error type when it is not streaming (529 for
   * `overloaded_error`, 500 for a type it does not know): what decides a retry.
   */
  readonly status: number;

  constructor(errorType: string, apiMessage: string) {
    super(`the stream ended with an error event: ${errorType}: ${apiMessage}`);
    this.name = 'StreamApiError';
    this.errorType = errorType;
    this.apiMessage = apiMessage;
    this.status = statusOfErrorType[errorType] ?? 500;
  }
}
