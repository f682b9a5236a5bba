import type { Message } from './language-model.js';
import { parseResponse } from './parse-response.js';
import { formatExecution } from './prompts.js';
import type { HistoryStep } from './history-entry.js';

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
  const [first] = messages;
  const keepFrom = compactedStepCount(messages, budgetChars);
  if (!first || keepFrom === 0) return [...messages];
  const steps = stepsOf(messages);
  const summaryBudget = Math.floor(budgetChars * summaryShare);

  const lines: string[] = [];
  let used = 0;
  for (let index = keepFrom - 1; index >= 0; index -= 1) {
    const line = summarizeStep(index + 1, steps[index]!.assistant, steps[index]!.user);
    if (used + line.length + 1 > summaryBudget - 200) {
      lines.push(`- steps 1-${index + 1}: omitted here (see \`history.at(-1).steps\`)`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  const summary = [
    `Earlier steps 1-${keepFrom}, compacted; the variables they made are still in the REPL, and \`history.at(-1).steps\` holds their exact code and output:`,
    ...lines.reverse(),
  ].join('\n');
  const kept = steps
    .slice(keepFrom)
    .flatMap((step) => (step.user ? [step.assistant, step.user] : [step.assistant]));
  return [appendText(first, summary), ...kept];
}

/**
 * PURE: how many of the oldest steps {@link boundHistory} compacts out of `messages` under
 * `budgetChars` (0 when all fit).
 */
export function compactedStepCount(messages: readonly Message[], budgetChars: number): number {
  if (messages.length < 3) return 0;
  const steps = stepsOf(messages);
  return compactionBoundary(
    steps.map((step) => step.size),
    budgetChars - messageChars(messages[0]!),
    Math.floor(budgetChars * summaryShare),
  );
}

/**
 * PURE: the code blocks that ran in the first `count` steps of a conversation, each with what
 * the model was shown of its output, read back from the transcript: a block's code from the
 * response (`codeLanguages` are the fences that run), its output from the step's user message.
 */
export function compactedSteps(
  messages: readonly Message[],
  count: number,
  codeLanguages: readonly string[],
): HistoryStep[] {
  return stepsOf(messages)
    .slice(0, count)
    .flatMap((step, index) => {
      const blocks = parseResponse(textOf(step.assistant), codeLanguages).codeBlocks;
      // The outputs are one text part of the user message; notes and the step line are others.
      const parts = step.user ? textParts(step.user) : [];
      const found: { code: string; part: string; headerAt: number; outputAt: number }[] = [];
      let partAt = 0;
      let from = 0;
      for (const { code, language } of blocks) {
        const header = formatExecution(code, '', language).slice(0, -'(no output)'.length);
        for (let at = partAt; at < parts.length; at += 1) {
          const headerAt = parts[at]!.indexOf(header, at === partAt ? from : 0);
          if (headerAt < 0) continue;
          found.push({ code, part: parts[at]!, headerAt, outputAt: headerAt + header.length });
          partAt = at;
          from = headerAt + header.length;
          break;
        }
      }
      return found.map(({ code, part, outputAt }, at) => {
        const next = found[at + 1]?.part === part ? found[at + 1] : undefined;
        const output = part.slice(outputAt, next ? next.headerAt - 2 : undefined);
        return { step: index + 1, code, output: output === '(no output)' ? '' : output };
      });
    });
}

function textParts(message: Message): string[] {
  if (typeof message.content === 'string') return [message.content];
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
}

/** A conversation's steps: each assistant message and the user message answering it. */
function stepsOf(
  messages: readonly Message[],
): { assistant: Message; user: Message | undefined; size: number }[] {
  const steps: { assistant: Message; user: Message | undefined; size: number }[] = [];
  for (let index = 1; index < messages.length; index += 2) {
    const assistant = messages[index]!;
    const user = messages[index + 1];
    steps.push({
      assistant,
      user,
      size: messageChars(assistant) + (user ? messageChars(user) : 0),
    });
  }
  return steps;
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
