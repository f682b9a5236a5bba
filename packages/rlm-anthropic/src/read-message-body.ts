import type Anthropic from '@anthropic-ai/sdk';
import { MalformedBodyError } from './malformed-body-error.js';

/** How much of a bad body an error quotes. */
const quotedBytes = 120;

/**
 * Reads a 2xx Messages API response and returns its message. Aborting the request's signal
 * rejects with the abort error (the caller tells a timeout from an abort).
 *
 * @throws {MalformedBodyError} when the body is cut, is not JSON, or is JSON that is not a
 * `message` (with `content` and `usage`).
 */
export async function readMessageBody(response: Response): Promise<Anthropic.Message> {
  const contentType = response.headers.get('content-type') ?? 'none';
  const length = response.headers.get('content-length');
  const expectedBytes = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  const chunks: Uint8Array[] = [];
  let receivedBytes = 0;
  const fault = (problem: string) =>
    new MalformedBodyError({
      status: response.status,
      contentType,
      receivedBytes,
      expectedBytes,
      firstBytes: new TextDecoder().decode(
        Buffer.concat(chunks.slice(0, 4)).subarray(0, quotedBytes),
      ),
      problem,
    });

  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        receivedBytes += value.byteLength;
      }
    } catch (error) {
      if (isAbort(error)) throw error;
      const of = expectedBytes === undefined ? '' : ` of ${expectedBytes}`;
      throw fault(`cut after ${receivedBytes}${of} bytes (${rootMessage(error)})`);
    }
  }
  if (expectedBytes !== undefined && receivedBytes < expectedBytes) {
    throw fault(`cut after ${receivedBytes} of ${expectedBytes} bytes`);
  }
  if (!/\bjson\b/i.test(contentType)) throw fault(`content-type ${contentType}, not JSON`);
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fault(receivedBytes === 0 ? 'the body is empty' : 'the body is not valid JSON');
  }
  if (!isMessage(value)) throw fault(`the JSON is ${describeJson(value)}, not a message`);
  return value;
}

function isMessage(value: unknown): value is Anthropic.Message {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { type?: unknown; content?: unknown; usage?: unknown };
  const usage = candidate.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  return (
    candidate.type === 'message' &&
    Array.isArray(candidate.content) &&
    typeof usage === 'object' &&
    usage !== null &&
    typeof usage.input_tokens === 'number' &&
    typeof usage.output_tokens === 'number'
  );
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? `an object of type ${JSON.stringify(type)}` : 'an object';
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
