import type { Message } from './language-model.js';
import { parseResponse } from './parse-response.js';

/** Share of the budget the compacted summary may use; the rest goes to the newest steps. */
const summaryShare = 0.2;
/** Characters of code and output quoted per compacted step. */
const quoteChars = 160;

/**
 * Bounds a call's conversation for the prompt. The first message (query and context metadata)
 * is always kept; the newest steps (an assistant message and the user message answering it) are
 * kept whole; older steps are compacted into a short summary appended to the first message,
 * itself bounded. Compaction moves in large strides (see {@link compactionBoundary}) and the
 * summary depends only on the compacted steps, so the start of the prompt stays the same for
 * many steps in a row and a provider's prompt cache keeps serving it. Tool calls and their
 * results leave together, so the result still alternates roles and pairs every tool call with
 * its result. The full transcript is not touched: this only shapes what is sent.
 *
 * @param budgetChars upper bound on the characters of the returned messages (the last step is
 *   always kept, even when it alone is larger).
 */
export function boundHistory(messages: readonly Message[], budgetChars: number): Message[] {
  const sizes = messages.map(messageChars);
  const [first, ...rest] = messages;
  if (!first || rest.length < 2) return [...messages];

  const steps: { assistant: Message; user: Message | undefined; size: number }[] = [];
  for (let index = 0; index < rest.length; index += 2) {
    const assistant = rest[index]!;
    const user = rest[index + 1];
    steps.push({ assistant, user, size: sizes[index + 1]! + (sizes[index + 2] ?? 0) });
  }

  const summaryBudget = Math.floor(budgetChars * summaryShare);
  const keepFrom = compactionBoundary(
    steps.map((step) => step.size),
    budgetChars - sizes[0]!,
    summaryBudget,
  );
  if (keepFrom === 0) return [...messages];

  const lines: string[] = [];
  let used = 0;
  for (let index = keepFrom - 1; index >= 0; index -= 1) {
    const line = summarizeStep(index + 1, steps[index]!.assistant, steps[index]!.user);
    if (used + line.length + 1 > summaryBudget - 200) {
      lines.push(`- steps 1-${index + 1}: omitted here (the full transcript is kept in the store)`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  const summary = [
    `Earlier steps 1-${keepFrom}, compacted; the variables they made are still in the REPL:`,
    ...lines.reverse(),
  ].join('\n');
  const kept = steps
    .slice(keepFrom)
    .flatMap((step) => (step.user ? [step.assistant, step.user] : [step.assistant]));
  return [appendText(first, summary), ...kept];
}

/**
 * The index of the first step kept whole; the steps before it are compacted. Replays the run
 * step by step: while everything fits in `roomChars` nothing is compacted; once the kept steps
 * (and, after the first compaction, the summary's `summaryChars`) overflow it, the boundary jumps
 * forward until the kept steps fill at most half the room left beside the summary. So the
 * boundary moves only every so many steps, and between moves the prompt's start is unchanged.
 * The newest step is always kept.
 *
 * @param stepSizes characters of each step, oldest first.
 * @param roomChars characters available for the steps and the summary.
 */
export function compactionBoundary(
  stepSizes: readonly number[],
  roomChars: number,
  summaryChars: number,
): number {
  const compactedRoom = roomChars - summaryChars;
  let boundary = 0;
  let kept = 0;
  for (const [index, size] of stepSizes.entries()) {
    kept += size;
    const room = boundary === 0 ? roomChars : compactedRoom;
    if (kept <= room) continue;
    while (boundary < index && kept > compactedRoom / 2) {
      kept -= stepSizes[boundary]!;
      boundary += 1;
    }
  }
  return boundary;
}

function summarizeStep(number: number, assistant: Message, user: Message | undefined): string {
  const code = parseResponse(textOf(assistant), ['repl', 'js', 'javascript'])
    .codeBlocks.map((block) => block.code)
    .join('\n');
  const output = user ? textOf(user).replace(/^Code executed:[\s\S]*?REPL output:\n/gm, '') : '';
  const did = code ? `ran ${quote(code)}` : `said ${quote(textOf(assistant))}`;
  return `- step ${number}: ${did} -> ${quote(output)} (${output.length} chars)`;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > quoteChars ? `${flat.slice(0, quoteChars)}...` : flat);
}

function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) =>
      part.type === 'text' ? part.text : part.type === 'tool-result' ? part.content : '',
    )
    .join('\n');
}

function messageChars(message: Message): number {
  if (typeof message.content === 'string') return message.content.length;
  let size = 0;
  for (const part of message.content) {
    if (part.type === 'text') size += part.text.length;
    else if (part.type === 'tool-result') size += part.content.length;
    else size += JSON.stringify(part.call.input ?? null).length + part.call.name.length;
  }
  return size;
}

function appendText(message: Message, text: string): Message {
  if (message.role !== 'user') return message;
  const parts =
    typeof message.content === 'string'
      ? [{ type: 'text' as const, text: message.content }]
      : message.content;
  return { role: 'user', content: [...parts, { type: 'text', text }] };
}
