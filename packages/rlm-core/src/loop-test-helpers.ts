import type { RlmEvent } from './events.js';
import type { GenerateRequest, ToolCall } from './language-model.js';

/** Helpers of the loop's own tests (`loop-*.test.ts`); not part of the package's API. */

/** A model response that is one runnable code block. */
export function repl(code: string): string {
  return `\`\`\`repl\n${code}\n\`\`\``;
}

/** The parts of a scripted reply that call the native SUBMIT tool with `input`. */
export function submitTool(
  input: unknown,
  id = 'toolu_1',
): { readonly toolCalls: readonly ToolCall[] } {
  return { toolCalls: [{ id, name: 'SUBMIT', input }] };
}

/** The text of a request's last message (text parts and tool results), joined by newlines. */
export function lastMessageText(request: GenerateRequest): string {
  const message = request.messages.at(-1);
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) =>
      part.type === 'text' ? part.text : part.type === 'tool-result' ? part.content : '',
    )
    .join('\n');
}

/** The query a request's call was started with (its first message names it). */
export function queryOf(request: GenerateRequest): string {
  return lastMessageText({ ...request, messages: request.messages.slice(0, 1) });
}

/** The warning codes among `events`, in order. */
export function warningCodes(events: readonly RlmEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'warning' ? [event.code] : []));
}
