import type { Message, TextPart, ToolCallPart, ToolResultPart } from './language-model.js';

/** A user message as {@link normalizeConversation} returns it: always a non-empty part list. */
export interface NormalizedUserMessage {
  readonly role: 'user';
  readonly content: readonly (TextPart | ToolResultPart)[];
}

/** An assistant message as {@link normalizeConversation} returns it: a non-empty part list. */
export interface NormalizedAssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly (TextPart | ToolCallPart)[];
}

/** One message of a conversation every provider accepts. */
export type NormalizedMessage = NormalizedUserMessage | NormalizedAssistantMessage;

/** Stands in for content that would otherwise be empty, which providers reject. */
export const emptyContentPlaceholder = '(empty)';

/** The error result synthesized for a tool call our history never answered. */
export const missingToolResultText = 'No result was recorded for this tool call.';

type Part = TextPart | ToolCallPart | ToolResultPart;

interface Turn {
  readonly role: 'user' | 'assistant';
  parts: Part[];
}

/** Whether `text` is only whitespace (as `trim` counts it), read up to its first other character. */
function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

function toParts(message: Message): Part[] {
  if (typeof message.content === 'string') {
    return isBlank(message.content) ? [] : [{ type: 'text', text: message.content }];
  }
  return message.content.flatMap((part): Part[] => {
    if (part.type === 'text') return isBlank(part.text) ? [] : [part];
    if (part.type === 'tool-result' && isBlank(part.content)) {
      return [{ ...part, content: emptyContentPlaceholder }];
    }
    return [part];
  });
}

function orphanResultText(result: ToolResultPart): TextPart {
  const label = result.isError ? 'error result' : 'result';
  return { type: 'text', text: `Tool ${label} for call ${result.toolCallId}: ${result.content}` };
}

/**
 * Rebuilds a user turn so it opens with one result for each tool call of the assistant turn
 * before it, in call order: missing results are synthesized as errors; results that answer
 * nothing there (orphans, duplicates) become text.
 */
function pairToolResults(previous: Turn | undefined, user: Turn): Turn {
  const calls = (previous?.parts ?? []).filter(
    (part): part is ToolCallPart => part.type === 'tool-call',
  );
  const results = new Map<string, ToolResultPart>();
  const rest: Part[] = [];
  for (const part of user.parts) {
    if (part.type !== 'tool-result') {
      rest.push(part);
    } else if (
      calls.some((call) => call.call.id === part.toolCallId) &&
      !results.has(part.toolCallId)
    ) {
      results.set(part.toolCallId, part);
    } else {
      rest.push(orphanResultText(part));
    }
  }
  const answers = calls.map(
    ({ call }): Part =>
      results.get(call.id) ?? {
        type: 'tool-result',
        toolCallId: call.id,
        content: missingToolResultText,
        isError: true,
      },
  );
  return { role: 'user', parts: [...answers, ...rest] };
}

/**
 * Rewrites a conversation into the shape every chat provider accepts. Pure and idempotent:
 * normalizing a normalized conversation returns an equal one.
 * - blank text is dropped, a blank tool result says {@link emptyContentPlaceholder}, and a
 *   message left with nothing says {@link emptyContentPlaceholder};
 * - consecutive messages of one role are merged, and the first message is a user message;
 * - every assistant tool call is answered by a tool result at the start of the next user
 *   message, in call order (synthesized as an error saying {@link missingToolResultText}
 *   when the history has none); results answering nothing become text;
 * - a trailing assistant message with tool calls gets a user message answering them; one
 *   with no content is dropped; otherwise its final text loses its trailing whitespace (a
 *   prefill).
 *
 * An empty conversation normalizes to one user message saying {@link emptyContentPlaceholder}.
 */
export function normalizeConversation(messages: readonly Message[]): NormalizedMessage[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const parts = toParts(message);
    const previous = turns.at(-1);
    if (previous?.role === message.role) previous.parts.push(...parts);
    else turns.push({ role: message.role, parts });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', parts: [] });
  for (const [index, turn] of turns.entries()) {
    if (turn.role === 'user') turns[index] = pairToolResults(turns[index - 1], turn);
  }
  const last = turns.at(-1)!;
  if (last.role === 'assistant') {
    if (last.parts.some((part) => part.type === 'tool-call')) {
      turns.push(pairToolResults(last, { role: 'user', parts: [] }));
    } else if (last.parts.length === 0) {
      turns.pop();
    } else {
      const final = last.parts.at(-1);
      if (final?.type === 'text') {
        const trimmed = final.text.trimEnd();
        last.parts[last.parts.length - 1] = { type: 'text', text: trimmed };
      }
    }
  }
  return turns.map(
    (turn) =>
      ({
        role: turn.role,
        content:
          turn.parts.length > 0 ? turn.parts : [{ type: 'text', text: emptyContentPlaceholder }],
      }) as NormalizedMessage,
  );
}
