import type { Message, TextPart, ToolCallPart, ToolResultPart } from './language-model.js';

/** Appends a message, merging it into the previous one when the roles match. */
export function appendMessage(messages: Message[], message: Message): void {
  const previous = messages.at(-1);
  if (previous?.role !== message.role) {
    messages.push(message);
    return;
  }
  const merged = [...toParts(previous.content), ...toParts(message.content)];
  messages[messages.length - 1] = { role: message.role, content: merged } as Message;
}

function toParts(
  content: Message['content'],
): readonly (TextPart | ToolCallPart | ToolResultPart)[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
