/** A message as the fake server would answer it unstreamed (`type: 'message'`). */
export interface FakeStreamedMessage {
  readonly id: string;
  readonly model: string;
  readonly content: readonly { readonly type: string; readonly [key: string]: unknown }[];
  readonly stop_reason: string;
  readonly usage: Readonly<Record<string, number>>;
  readonly [field: string]: unknown;
}

/** How a streamed answer is cut into events. */
export interface FakeStreamShape {
  /**
   * Characters of text (or of a tool call's JSON input) in each delta event. Default 4, or as
   * many as keep a block to {@link maxDefaultDeltas} deltas (a 10 MB answer stays quick).
   */
  readonly deltaChars?: number;
}

/** The most deltas a block is cut into when `deltaChars` is not given. */
export const maxDefaultDeltas = 256;

/** One server-sent event: its name and its JSON data. */
export interface FakeStreamEvent {
  readonly event: string;
  readonly data: object;
}

/** Cuts `text` into pieces of at most `size` characters, never splitting a surrogate pair. */
function pieces(text: string, size: number): string[] {
  const characters = Array.from(text);
  const out: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    out.push(characters.slice(start, start + size).join(''));
  }
  return out;
}

/**
 * The events the Messages API sends for `message` when asked to stream, in the API's order:
 * `message_start` (the message with no content, input usage and `output_tokens: 1`), a `ping`,
 * then for each block `content_block_start` (a text block with empty text, a `tool_use` block
 * with an empty `input`), its deltas (`text_delta`; `input_json_delta` pieces of the input's
 * JSON, starting with an empty one as the API does), `content_block_stop`; then
 * `message_delta` with the stop reason and the output usage, and `message_stop`.
 */
export function toMessageStreamEvents(
  message: FakeStreamedMessage,
  shape: FakeStreamShape = {},
): FakeStreamEvent[] {
  const sizeFor = (text: string) =>
    Math.max(1, shape.deltaChars ?? Math.max(4, Math.ceil(text.length / maxDefaultDeltas)));
  const { output_tokens: outputTokens, ...inputUsage } = message.usage;
  const events: FakeStreamEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: message.id,
          type: 'message',
          role: 'assistant',
          model: message.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...inputUsage, output_tokens: 1 },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  message.content.forEach((block, index) => {
    const delta = (value: object) =>
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: value },
      });
    if (block.type === 'text') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { ...block, text: '' } },
      });
      const text = String(block.text);
      for (const piece of pieces(text, sizeFor(text))) delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'tool_use') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { ...block, input: {} } },
      });
      delta({ type: 'input_json_delta', partial_json: '' });
      const json = JSON.stringify(block.input) ?? '';
      for (const partial_json of pieces(json, sizeFor(json))) {
        delta({ type: 'input_json_delta', partial_json });
      }
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: block },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: outputTokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

/** One event as it goes on the wire: `event: <name>\ndata: <json>\n\n`. */
export function formatStreamEvent({ event, data }: FakeStreamEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
