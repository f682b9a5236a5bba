import type { DurableToolFailureClass } from '@rlm/core';

/**
 * Why a tool call failed (core's `DurableToolFailureClass`), which decides what the failure
 * does to the tool and whether the loop repairs it at once:
 * - `intrinsic`: the code itself is wrong (syntax, logic, arity, `TypeError`,
 *   `ReferenceError`, a wrong return shape). Counts toward degradation, then repair, then
 *   regeneration.
 * - `adaptive`: the input or an upstream source changed format (unparsable input, schema
 *   drift). Sends the method to repair on its next call.
 * - `extrinsic`: the world failed (timeout, rate limit, network, abort). Logged and counted,
 *   but never demotes a healthy tool.
 */
export type FailureClass = DurableToolFailureClass;

/** The parts of a failure {@link classifyFailure} reads, when the caller has more than a line. */
export interface FailureInfo {
  /** Error name, for example `TypeError` or `AbortError`. */
  readonly name?: string;
  /** The error message or the sandbox's error line. */
  readonly message: string;
  /** A Node or HTTP client error code, for example `ECONNRESET`. */
  readonly code?: string;
  /** An HTTP status, when a remote service answered. */
  readonly status?: number;
}

const extrinsicNames = /^(AbortError|TimeoutError|AbortedError)$/;
const extrinsicCodes =
  /^(ABORT_ERR|ETIMEDOUT|ESOCKETTIMEDOUT|ECONNRESET|ECONNREFUSED|ECONNABORTED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|ENETDOWN|EHOSTUNREACH|EPIPE|UND_ERR_\w+)$/;
const extrinsicText = new RegExp(
  [
    String.raw`\b(AbortError|TimeoutError)\b`,
    String.raw`\btime[ds]?[ -]?out\b`,
    String.raw`\bdeadline exceeded\b`,
    String.raw`\brate[ -]?limit`,
    String.raw`\btoo many requests\b`,
    String.raw`\bquota exceeded\b`,
    String.raw`\boverloaded\b`,
    String.raw`\bservice unavailable\b`,
    String.raw`\bbad gateway\b`,
    String.raw`\bgateway time-?out\b`,
    String.raw`\bnetwork (error|failure|is unreachable)\b`,
    String.raw`\bsocket hang up\b`,
    String.raw`\bfetch failed\b`,
    String.raw`\bconnection (reset|refused|closed|timed out)\b`,
    String.raw`\b(ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b`,
    String.raw`\baborted\b`,
    String.raw`\b(HTTP|status)[ :]*(408|429|5\d\d)\b`,
  ].join('|'),
  'i',
);
/** The method's own result failed its contract: the code is wrong, whatever else is said. */
const returnShapeText =
  /\b(return value|returned (value|type|shape)|result (shape|type)|deliverable|acceptance)\b/i;
const adaptiveText = new RegExp(
  [
    String.raw`\bunexpected (input |response |data |payload )?format\b`,
    String.raw`\b(input|upstream|source|response) format (changed|drift)`,
    String.raw`\bformat (drift|has changed|changed)\b`,
    String.raw`\bschema (mismatch|drift|violation)\b`,
    String.raw`\bdoes not match (the )?(expected |input |response )?schema\b`,
    String.raw`\bis not valid JSON\b`,
    String.raw`\bin JSON at position\b`,
    String.raw`\bunexpected end of JSON input\b`,
    String.raw`\b(failed|unable|could not|couldn't|cannot|can't) (to )?parse\b`,
    String.raw`\bunexpected (input|response|payload|data) (shape|structure)\b`,
    String.raw`\bmissing (required |expected )?(field|column|header)s?\b`,
    String.raw`\b(unknown|unrecognized|unexpected) (field|column|header)s?\b`,
    String.raw`\bunsupported (input |data )?format\b`,
    String.raw`\bmalformed (input|response|data|payload|csv|json|xml|html|feed)\b`,
  ].join('|'),
  'i',
);

/**
 * Classifies a failed tool call. Accepts the sandbox's error line (a string), an `Error`, or
 * a {@link FailureInfo}-like object. Rules, first match wins:
 * 1. extrinsic: an abort or timeout error name; a network error code; HTTP 408, 429 or 5xx;
 *    a message about timeouts, rate limits, overload, the network, or an abort;
 * 2. intrinsic: a message about the method's own result (return value, deliverable,
 *    acceptance): a wrong return shape is the code's fault;
 * 3. adaptive: a message about the input's format or schema: unexpected format, schema
 *    mismatch, invalid JSON input, could not parse, missing or unknown fields or columns;
 * 4. intrinsic: everything else (`TypeError`, `ReferenceError`, `SyntaxError` of the code,
 *    arity, wrong return shape, any unrecognised error). Unknown failures count against the
 *    code, so a broken tool cannot hide behind vague messages.
 *
 * Pure and deterministic.
 */
export function classifyFailure(error: unknown): FailureClass {
  const info = toFailureInfo(error);
  if (info.name !== undefined && extrinsicNames.test(info.name)) return 'extrinsic';
  if (info.code !== undefined && extrinsicCodes.test(info.code)) return 'extrinsic';
  if (
    info.status !== undefined &&
    (info.status === 408 || info.status === 429 || info.status >= 500)
  ) {
    return 'extrinsic';
  }
  if (extrinsicText.test(info.message)) return 'extrinsic';
  if (returnShapeText.test(info.message)) return 'intrinsic';
  if (adaptiveText.test(info.message)) return 'adaptive';
  return 'intrinsic';
}

/** Reads name, message, code and status from whatever a caller caught. */
export function toFailureInfo(error: unknown): FailureInfo {
  if (typeof error === 'string') return { message: error };
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const record = error as Record<string, unknown>;
  const status = record.status ?? record.statusCode;
  return {
    name: typeof record.name === 'string' ? record.name : undefined,
    message: typeof record.message === 'string' ? record.message : String(error),
    code: typeof record.code === 'string' ? record.code : undefined,
    status: typeof status === 'number' ? status : undefined,
  };
}
