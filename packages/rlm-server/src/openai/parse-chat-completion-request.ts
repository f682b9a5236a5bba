import path from 'node:path';
import { ServedRequestError } from '../errors/served-request-error.js';
import type { RequestedRunLimits } from '../run-limits.js';
import type { ServedFile, ServedMessage } from '../served-context.js';

/** A `POST /v1/chat/completions` body, checked and split into query and context. */
export interface ChatCompletionRequest {
  /** `model` as sent; `undefined` for the default. */
  readonly model: unknown;
  /** The last message's text: the question. */
  readonly query: string;
  /** Every earlier message with text, in order. */
  readonly messages: readonly ServedMessage[];
  /** The `file` parts of every message, decoded, in order. */
  readonly files: readonly ServedFile[];
  /** The `context` extension field, as sent; `undefined` when absent. */
  readonly inline: unknown;
  /** The `context_paths` extension field, as sent; `undefined` when absent. */
  readonly paths: unknown;
  /** `max_model_calls`, `max_cost_usd`, `max_wall_time_ms`, as sent. */
  readonly limits: RequestedRunLimits;
  readonly stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  readonly includeUsage: boolean;
}

/**
 * Reads a Chat Completions request body. The last message must be the user's and holds the
 * question; the earlier messages, `file` content parts (text files as base64 `file_data`), the
 * `context` field and `context_paths` become the context. Sampling settings (`temperature`,
 * `max_tokens`, ...) and `tools` are ignored: the RLM decides its own calls.
 *
 * @throws {ServedRequestError} 400 naming the field at fault.
 */
export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest {
  if (!isRecord(body)) {
    throw badRequest('the body must be a JSON object with messages', 'invalid_body');
  }
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest(
      'messages must be a non-empty array whose last message is the question, e.g. [{"role": "user", "content": "..."}]',
      'missing_query',
      'messages',
    );
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw badRequest('n must be 1: an RLM gives one answer per request', 'unsupported_n', 'n');
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw badRequest('stream must be true or false', 'invalid_stream', 'stream');
  }
  const files: ServedFile[] = [];
  const read = messages.map((message, index) => readMessage(message, index, files));
  const last = read.at(-1)!;
  if (last.role !== 'user') {
    throw badRequest(
      `the last message must be the user's question (got role ${JSON.stringify(last.role)}); end messages with {"role": "user", "content": "..."}`,
      'missing_query',
      `messages[${messages.length - 1}]`,
    );
  }
  if (last.content.trim() === '') {
    throw badRequest(
      'the last message has no text: put the question in it (files and context_paths are the context)',
      'missing_query',
      `messages[${messages.length - 1}].content`,
    );
  }
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  return {
    model: body.model ?? undefined,
    query: last.content,
    messages: read.slice(0, -1).filter((message) => message.content !== ''),
    files,
    inline: body.context ?? undefined,
    paths: body.context_paths ?? undefined,
    limits: {
      max_model_calls: body.max_model_calls,
      max_cost_usd: body.max_cost_usd,
      max_wall_time_ms: body.max_wall_time_ms,
    },
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
  };
}

/** One message as text; its file parts go to `files`. */
function readMessage(message: unknown, index: number, files: ServedFile[]): ServedMessage {
  const param = `messages[${index}]`;
  if (!isRecord(message) || typeof message.role !== 'string') {
    throw badRequest(
      `${param} must be an object with a role and content`,
      'invalid_message',
      param,
    );
  }
  const { content } = message;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (content === null || content === undefined) text = '';
  else if (Array.isArray(content)) {
    text = content
      .map((part, partIndex) => readPart(part, `${param}.content[${partIndex}]`, files))
      .filter((partText) => partText !== '')
      .join('\n\n');
  } else {
    throw badRequest(
      `${param}.content must be a string or an array of content parts`,
      'invalid_message',
      `${param}.content`,
    );
  }
  const name = typeof message.name === 'string' ? message.name : undefined;
  return name === undefined
    ? { role: message.role, content: text }
    : { role: message.role, content: text, name };
}

/** A content part's text (`''` for a file part, which goes to `files`). */
function readPart(part: unknown, param: string, files: ServedFile[]): string {
  if (!isRecord(part) || typeof part.type !== 'string') {
    throw badRequest(`${param} must be a content part with a type`, 'invalid_content_part', param);
  }
  if (part.type === 'text') {
    if (typeof part.text !== 'string') {
      throw badRequest(`${param}.text must be a string`, 'invalid_content_part', param);
    }
    return part.text;
  }
  if (part.type === 'file') {
    files.push(readFilePart(part.file, param, files.length));
    return '';
  }
  throw badRequest(
    `${param} is a ${JSON.stringify(part.type)} part, which an RLM cannot read; send text, a text file as a file part, or context_paths`,
    'unsupported_content',
    param,
  );
}

/** A `{ type: 'file', file: { file_data, filename } }` part: base64 (or a data URL) of UTF-8 text. */
function readFilePart(file: unknown, param: string, count: number): ServedFile {
  if (!isRecord(file)) {
    throw badRequest(
      `${param}.file must be an object with file_data`,
      'invalid_content_part',
      param,
    );
  }
  if (typeof file.file_data !== 'string') {
    throw badRequest(
      `${param}.file needs file_data (the file's bytes in base64); uploaded file ids are not supported`,
      'unsupported_content',
      `${param}.file`,
    );
  }
  const name =
    typeof file.filename === 'string' && file.filename.trim() !== ''
      ? file.filename
      : `file-${count + 1}`;
  const base64 = file.file_data.replace(/^data:[^,]*;base64,/, '');
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(base64)) {
    throw badRequest(`${param}.file.file_data is not base64`, 'invalid_content_part', param);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch (error) {
    throw badRequest(
      `${param} (${name}) is not UTF-8 text; an RLM reads text files only`,
      'unsupported_content',
      param,
      error,
    );
  }
  if (path.extname(name).toLowerCase() !== '.json') return { name, value: text };
  try {
    return { name, value: JSON.parse(text) };
  } catch (error) {
    throw badRequest(
      `${param} (${name}) is not valid JSON; fix it, or name it other than .json to send it as text`,
      'invalid_content_part',
      param,
      error,
    );
  }
}

function badRequest(
  message: string,
  code: string,
  param?: string,
  cause?: unknown,
): ServedRequestError {
  return new ServedRequestError(message, {
    status: 400,
    code,
    ...(param === undefined ? {} : { param }),
    ...(cause === undefined ? {} : { cause }),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
