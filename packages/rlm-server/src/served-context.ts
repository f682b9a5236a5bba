/** A message of the conversation before the query, as text. */
export interface ServedMessage {
  /** `system`, `developer`, `user`, `assistant` or `tool`, as the client sent it. */
  readonly role: string;
  /** Its text parts, joined by blank lines. */
  readonly content: string;
  /** The participant's `name`, when the client gave one. */
  readonly name?: string;
}

/** A named piece of context: a file under the context root, or a file attached to a message. */
export interface ServedFile {
  /** The path relative to the context root, or the attachment's file name. */
  readonly name: string;
  /** What the loader made of it: a string, or parsed JSON, or an array for a directory. */
  readonly value: unknown;
}

/** Where a request's context comes from; see {@link buildServedContext}. */
export interface ServedContextSources {
  /** The conversation before the query, in order. */
  readonly messages: readonly ServedMessage[];
  /** The request's own context value (`context` over HTTP, `text` over MCP); `undefined` if none. */
  readonly inline: unknown;
  /** Files under the context root and attached files, in order. */
  readonly files: readonly ServedFile[];
}

/**
 * The value the sandbox gets as `context`, never shown to the model whole:
 * - nothing given: `undefined` (no context);
 * - one source only: the messages as an array of `{ role, content, name? }`; the inline value
 *   as is; one file's value; several files as an object by name;
 * - several sources: an object with the keys present among `messages`, `context` (the inline
 *   value) and `files` (an object by name), in that order.
 * Names that repeat get ` (2)`, ` (3)`... so that no file is lost.
 */
export function buildServedContext(sources: ServedContextSources): unknown {
  const parts: [string, unknown][] = [];
  if (sources.messages.length > 0) parts.push(['messages', sources.messages.map(messageValue)]);
  if (sources.inline !== undefined) parts.push(['context', sources.inline]);
  if (sources.files.length > 0) parts.push(['files', filesByName(sources.files)]);
  if (parts.length === 0) return undefined;
  if (parts.length > 1) return Object.fromEntries(parts);
  const [kind, value] = parts[0]!;
  return kind === 'files' && sources.files.length === 1 ? sources.files[0]!.value : value;
}

function messageValue(message: ServedMessage): ServedMessage {
  return message.name === undefined
    ? { role: message.role, content: message.content }
    : { role: message.role, content: message.content, name: message.name };
}

function filesByName(files: readonly ServedFile[]): Record<string, unknown> {
  const byName: Record<string, unknown> = {};
  for (const file of files) {
    let name = file.name;
    for (let copy = 2; Object.hasOwn(byName, name); copy++) name = `${file.name} (${copy})`;
    byName[name] = file.value;
  }
  return byName;
}
