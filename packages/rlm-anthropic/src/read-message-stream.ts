import type Anthropic from '@anthropic-ai/sdk';
import { Stream } from '@anthropic-ai/sdk/core/streaming';
import { MalformedBodyError } from './malformed-body-error.js';
import { StreamApiError } from './stream-api-error.js';
import { StreamCutError } from './stream-cut-error.js';

/** What {@link readMessageStream} reports while it reads. */
export interface MessageStreamListener {
  /** Each piece of text as it arrives. A throw is ignored. */
  readonly onText?: ((delta: string) => void) | undefined;
  /** Called on every event (pings included): the stream is alive. */
  readonly onEvent?: (() => void) | undefined;
}

type JsonObject = Record<string, unknown>;

/** A content block being assembled: tool inputs arrive as JSON text in pieces. */
interface OpenBlock {
  block: JsonObject;
  json: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function emitText(onText: MessageStreamListener['onText'], delta: string): void {
  try {
    onText?.(delta);
  } catch {
    // Reporting text is best-effort.
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const message = current instanceof Error ? current.message : String(current);
  return message.replace(/\s+/g, ' ').trim().slice(0, 120);
}

/** Copies the counts a `message_delta` carries (cumulative; `null` when not sent). */
function mergeUsage(usage: JsonObject, update: unknown): void {
  if (!isObject(update)) return;
  for (const [name, value] of Object.entries(update)) {
    if (typeof value === 'number') usage[name] = value;
  }
}

/**
 * Reads a streamed (server-sent events) Messages API response to its `message_stop` and
 * returns the message it spells: `message_start` gives the message and its input usage, each
 * `content_block_start` a block, `text_delta`s its text (each passed to `onText` as it
 * arrives), `input_json_delta`s a tool call's input as JSON text (parsed when the block stops),
 * `message_delta` the stop reason and the output usage. Aborting the request's signal rejects
 * with the abort error (the caller tells a timeout from an abort).
 *
 * @throws {StreamApiError} when the API sends an `error` event.
 * @throws {StreamCutError} when the connection fails, or the stream ends before `message_stop`.
 * @throws {MalformedBodyError} when an event is not JSON, or the events are not a message's.
 */
export async function readMessageStream(
  response: Response,
  listener: MessageStreamListener = {},
): Promise<Anthropic.Message> {
  const contentType = response.headers.get('content-type') ?? 'none';
  let message: JsonObject | undefined;
  let usage: JsonObject = {};
  const content: JsonObject[] = [];
  const open = new Map<number, OpenBlock>();
  let events = 0;
  let receivedBytes = 0;
  let firstBytes = '';
  const fault = (problem: string) =>
    new MalformedBodyError({
      status: response.status,
      contentType,
      receivedBytes,
      expectedBytes: undefined,
      firstBytes,
      problem,
    });

  const iterator = Stream.rawEvents(response)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<{ event: string | null; data: string; raw: string[] }>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new StreamCutError(`${rootMessage(error)} after ${events} events`);
    }
    if (next.done) break;
    const { event, data, raw } = next.value;
    receivedBytes += Buffer.byteLength(`${raw.join('\n')}\n\n`);
    if (firstBytes.length < 120) firstBytes += `${raw.join('\n')}\n\n`;
    events += 1;
    listener.onEvent?.();
    if (event === 'ping') continue;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      throw fault(`event ${events} (${event ?? 'unnamed'}) is not JSON`);
    }
    if (!isObject(payload)) throw fault(`event ${events} (${event ?? 'unnamed'}) is not an object`);
    if (event === 'error' || payload.type === 'error') {
      const error = isObject(payload.error) ? payload.error : {};
      throw new StreamApiError(
        typeof error.type === 'string' ? error.type : 'error',
        typeof error.message === 'string' ? error.message : JSON.stringify(payload),
      );
    }
    switch (payload.type) {
      case 'message_start': {
        if (!isObject(payload.message)) throw fault('message_start carries no message');
        message = payload.message;
        usage = { ...(isObject(message.usage) ? message.usage : {}) };
        break;
      }
      case 'content_block_start': {
        if (typeof payload.index !== 'number' || !isObject(payload.content_block)) {
          throw fault('a content_block_start has no index or block');
        }
        const block = { ...payload.content_block };
        content[payload.index] = block;
        open.set(payload.index, { block, json: '' });
        break;
      }
      case 'content_block_delta': {
        const slot = typeof payload.index === 'number' ? open.get(payload.index) : undefined;
        const delta = isObject(payload.delta) ? payload.delta : {};
        if (!slot) throw fault(`a content_block_delta for block ${payload.index}, not started`);
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          slot.block.text = `${typeof slot.block.text === 'string' ? slot.block.text : ''}${delta.text}`;
          if (delta.text !== '') emitText(listener.onText, delta.text);
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          slot.json += delta.partial_json;
        }
        break;
      }
      case 'content_block_stop': {
        const slot = typeof payload.index === 'number' ? open.get(payload.index) : undefined;
        if (slot && slot.block.type === 'tool_use' && slot.json !== '') {
          try {
            slot.block.input = JSON.parse(slot.json);
          } catch {
            // Cut off (max_tokens) or broken: the text stays, and the call reports it.
            slot.block.input = slot.json;
          }
        }
        if (typeof payload.index === 'number') open.delete(payload.index);
        break;
      }
      case 'message_delta': {
        if (!message) throw fault('a message_delta came before message_start');
        const delta = isObject(payload.delta) ? payload.delta : {};
        if ('stop_reason' in delta) message.stop_reason = delta.stop_reason;
        if ('stop_sequence' in delta) message.stop_sequence = delta.stop_sequence;
        mergeUsage(usage, payload.usage);
        break;
      }
      case 'message_stop': {
        if (!message) throw fault('message_stop came before message_start');
        // A tool_use block cut by max_tokens may never get its content_block_stop.
        for (const slot of open.values()) {
          if (slot.block.type === 'tool_use' && slot.json !== '') slot.block.input = slot.json;
        }
        if (typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') {
          throw fault('the streamed message reports no input_tokens or output_tokens');
        }
        return {
          ...message,
          content: content.filter(isObject),
          usage,
        } as unknown as Anthropic.Message;
      }
      default:
        // Events this adapter does not know yet are skipped, as the API asks of clients.
        break;
    }
  }
  throw new StreamCutError(`ended after ${events} events, before message_stop`);
}
