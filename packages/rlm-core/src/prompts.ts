import type { RemainingBudget } from './budget.js';
import { formatDuration } from './format-duration.js';
import type { CodeBlockPlan } from './plan-code-blocks.js';
import type { ModelPrice } from './budget-settings.js';
import type { ContextDescription } from './describe-context.js';

/** What the system prompt needs to know about the run. */
export interface SystemPromptOptions {
  /** Whether the native `SUBMIT` tool is offered. */
  readonly submitTool: boolean;
  /** Whether `sub_rlm` starts a full child RLM (false: it is one plain model call). */
  readonly recursion: boolean;
  /** The fence language model code must use. */
  readonly codeLanguage: string;
  /** Lines the installed features add after the core functions (see `Feature.replHelp`). */
  readonly replHelp: readonly string[];
  /** What model code may choose with `{ model }`; `undefined` when it cannot choose. */
  readonly models: ModelMenu | undefined;
}

/** The models model code may name per call, for the prompt. */
export interface ModelMenu {
  /** The model `llm_query` uses without a choice. */
  readonly plainModel: string;
  /** The model a `sub_rlm` child steps with without a choice. */
  readonly childModel: string;
  /** The ids allowed, each with its price when known; `undefined`: any id of the provider. */
  readonly allowed: readonly { readonly id: string; readonly price?: ModelPrice }[] | undefined;
}

/** The built-in system prompt. */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const fence = '```' + options.codeLanguage;
  const finishing = options.submitTool
    ? [
        'When you are done, call the SUBMIT tool: `{"answer": "..."}` for a text answer, or',
        '`{"variable": "name"}` to return a variable you built in the REPL (best for long answers:',
        'they never have to pass through your output). From code you can also call',
        '`SUBMIT(value)` or `FINAL_VAR("name")`: that call ends the code block (nothing after it',
        'runs).',
      ]
    : [
        'When you are done, write on its own line, outside any code block, either',
        '`FINAL(your answer)` or `FINAL_VAR(variable_name)` to return a variable you built in',
        'the REPL (best for long answers). From code you can also call `SUBMIT(value)` or',
        '`FINAL_VAR("name")`: that call ends the code block (nothing after it runs).',
      ];
  const model = options.models ? ', { model }' : '';
  return [
    'You answer a query over a context that may be far larger than what you can read at once.',
    'The context is NOT in this conversation: it lives in a JavaScript REPL as the variable',
    '`context`. You explore it by writing code, and you can hand pieces of it to other model',
    'calls.',
    '',
    `Write JavaScript in ${fence} blocks. Blocks run in order in one persistent environment:`,
    'top-level const/let/function/class declarations stay available to later blocks, and',
    'top-level `await` works. You see what the code prints (print(...) or console.log(...))',
    'and the value of its last expression, truncated when long, so print summaries, counts',
    'and short excerpts, never the whole context.',
    '',
    'Available in the REPL:',
    '- `context`: the input (a string, an array of documents, or a JSON object).',
    `- \`await llm_query(prompt${model})\`: ask a language model; returns its text answer ("" when`,
    '  it gave none, with a warning in your output). It sees only the prompt you pass, so',
    '  include the text it should work on (it can take a large chunk, e.g. 100,000 characters).',
    `- \`await llm_query_batched(prompts${model})\`: many \`llm_query\` calls at once; returns the`,
    '  answers in order. A prompt that fails leaves the others their answers: its slot holds',
    "  `{ error, message }` (the error's name and message) instead of a string, so check",
    '  `typeof answer === "string"`. Prefer it (or Promise.all) over sequential calls.',
    options.recursion
      ? `- \`await sub_rlm(query, context${model})\`: start a full recursive solver, with its own REPL, on\n  a sub-question and a piece of the context; returns its answer.`
      : `- \`await sub_rlm(query, context${model})\`: answer a sub-question over a piece of the context\n  with one model call; returns its answer.`,
    `- \`await sub_rlm_batched([{ query, context }, ...]${model})\`: many \`sub_rlm\` calls at once;`,
    "  answers in order, a failed one's slot is `{ error, message }`.",
    '- `print(...)`: print values. `print(await SHOW_VARS())` lists the variables you made.',
    '- `history`: the queries of this session, this one last. When your earlier steps leave',
    '  this conversation (it is compacted as it grows), `history.at(-1).steps` keeps their',
    '  exact `{ step, code, output }`.',
    ...options.replHelp,
    ...(options.models ? ['', ...describeModelMenu(options.models)] : []),
    '',
    'Work step by step: look at the context size and structure first, then split it into',
    'chunks, query sub-models over the chunks, and combine their answers in variables.',
    'Do not guess: base the answer on what the code showed you.',
    '',
    ...finishing,
  ].join('\n');
}

/** How model code chooses a model per call, and which. */
function describeModelMenu(menu: ModelMenu): string[] {
  const lines = [
    `Choosing a model: \`{ model: "<id>" }\` as the last argument sends that call to another model;`,
    `without it, \`llm_query\` uses ${menu.plainModel} and a \`sub_rlm\` child ${menu.childModel}. Use`,
    'a small, cheap model for simple extraction or classification over many chunks, a stronger',
    'one for hard reasoning over few.',
  ];
  if (menu.allowed === undefined) {
    lines.push('Any model id of your provider works.');
    return lines;
  }
  lines.push('The models you may choose:');
  for (const { id, price } of menu.allowed) {
    lines.push(
      price
        ? `- ${id}: $${price.inputPerMillionUsd} input, $${price.outputPerMillionUsd} output per million tokens`
        : `- ${id}`,
    );
  }
  return lines;
}

/**
 * Counts of the contexts and earlier queries the call's sandbox holds, for the prompt's context
 * metadata, and a line saying what a bounded session moved out of memory, if anything.
 */
export interface SetupCounts {
  readonly contexts: number;
  readonly histories: number;
  readonly memoryNote?: string;
}

/** Describes the context and the persistent state for the first user message. */
export function buildContextMessage(
  query: string,
  description: ContextDescription,
  counts: SetupCounts,
): string {
  const lines = ['Context metadata:'];
  if (description.type === 'none') {
    lines.push('- no context was given (`context` is undefined).');
  } else {
    lines.push(`- type: ${description.type}`);
    lines.push(`- total length: ${description.totalChars} characters`);
    if (description.itemCount !== undefined) {
      lines.push(`- ${description.type === 'array' ? 'items' : 'keys'}: ${description.itemCount}`);
    }
    if (description.itemLengths && description.itemLengths.length > 0) {
      const more = (description.itemCount ?? 0) > description.itemLengths.length ? ', ...' : '';
      lines.push(`- item lengths: ${description.itemLengths.join(', ')}${more}`);
    }
    if (description.itemPaths && description.itemPaths.length > 0) {
      const more = (description.itemCount ?? 0) > description.itemPaths.length ? ', ...' : '';
      lines.push(`- item paths: ${description.itemPaths.join(', ')}${more}`);
    }
    if (description.tail === undefined) {
      lines.push(`- preview: ${JSON.stringify(description.preview)}`);
    } else {
      const unit = description.type === 'array' ? 'items' : 'characters';
      lines.push(`- first ${unit}: ${JSON.stringify(description.preview)}`);
      lines.push(`- last ${unit}: ${JSON.stringify(description.tail)}`);
    }
  }
  if (counts.contexts > 1 || counts.histories > 0) {
    lines.push(
      `- earlier queries in this session: ${counts.histories} (their contexts are context_0..context_${counts.contexts - 1}; their queries and answers are in \`history\`, before this query's own entry)`,
    );
  }
  if (counts.memoryNote) lines.push(`- ${counts.memoryNote}`);
  lines.push('', `Query: ${query}`);
  return lines.join('\n');
}

/**
 * The line that ends each step's user message: which step this is of how many, and what is
 * left of each budget that is set (`Step 3 of 30. Budget left: 12 model calls, $0.4210.`).
 */
export function buildStepStatus(
  step: number,
  maxSteps: number,
  remaining: RemainingBudget,
): string {
  const left: string[] = [];
  if (remaining.modelCalls !== undefined) {
    left.push(`${remaining.modelCalls} model call${remaining.modelCalls === 1 ? '' : 's'}`);
  }
  if (remaining.tokens !== undefined) left.push(`${remaining.tokens} tokens`);
  if (remaining.costUsd !== undefined) {
    left.push(`$${remaining.costUsd.toFixed(remaining.costUsd >= 1 ? 2 : 4)}`);
  }
  if (remaining.wallTimeMs !== undefined) {
    // Whole minutes past one: enough to plan by, and the prompt stays the same for a minute.
    const wallTimeMs =
      remaining.wallTimeMs >= 60_000
        ? Math.round(remaining.wallTimeMs / 60_000) * 60_000
        : remaining.wallTimeMs;
    left.push(`${formatDuration(wallTimeMs)} of wall time`);
  }
  const status = `Step ${step} of ${maxSteps}.`;
  return left.length === 0 ? status : `${status} Budget left: ${left.join(', ')}.`;
}

/** Formats one executed block for the history. */
export function formatExecution(code: string, output: string, codeLanguage: string): string {
  return `Code executed:\n\`\`\`${codeLanguage}\n${code}\n\`\`\`\n\nREPL output:\n${output.length > 0 ? output : '(no output)'}`;
}

/** Sent when a response had neither code nor an answer. */
export function buildContinueMessage(submitTool: boolean): string {
  return submitTool
    ? 'Continue: run code in a ```repl block to make progress, or call the SUBMIT tool with your answer.'
    : 'Continue: run code in a ```repl block to make progress, or write FINAL(answer) or FINAL_VAR(name) on its own line.';
}

/** What the model is told about the code blocks of its response that did not run. */
export function buildResponseNotes(plan: CodeBlockPlan, maxBlocks: number): string[] {
  const notes: string[] = [];
  if (plan.unfinishedDropped) {
    const ran =
      plan.run.length === 0
        ? ''
        : ` The ${plan.run.length} complete block${plan.run.length === 1 ? '' : 's'} before it ran.`;
    notes.push(
      `Your response was cut off at the output limit (max_tokens) in the middle of a code block, so that unfinished block was NOT run.${ran} Continue from where you stopped with shorter code blocks; keep large text in variables (build it in code) instead of writing it out in your response.`,
    );
  } else if (plan.cutOff) {
    notes.push(
      'Your response was cut off at the output limit (max_tokens). Continue from where you stopped, in shorter responses; keep large text in variables (build it in code) instead of writing it out.',
    );
  }
  if (plan.notRun > 0) {
    notes.push(
      `Only the first ${maxBlocks} code blocks of your response ran; the other ${plan.notRun} were NOT run. Put the work in fewer blocks (a loop in one block instead of one block per item).`,
    );
  }
  return notes;
}

/** The last prompt, sent when iterations run out. */
export function buildExtractMessage(submitTool: boolean, variables: string): string {
  const ask = submitTool
    ? 'Call the SUBMIT tool now with your best final answer, as `{"answer": ...}` or `{"variable": "name"}` to return one of the variables below.'
    : 'Give your best final answer now: write FINAL(answer), or FINAL_VAR(name) to return one of the variables below, on its own line.';
  return [
    'You have used all of your iterations: no more code will run.',
    ask,
    '',
    'Variables in the REPL:',
    variables.length > 0 ? variables : '(none)',
  ].join('\n');
}
