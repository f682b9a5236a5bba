import type { BridgeRequest } from '../bridge/bridge-router.js';
import { describeValue } from '../bridge/describe-value.js';
import { readCallOptions } from '../bridge/read-call-options.js';
import { readPrompt, readPrompts, toJsonText } from '../bridge/read-prompt.js';
import { ModelCallError } from '../errors/model-call-error.js';
import type { LanguageModel } from '../language-model.js';
import type { ModelChoice } from '../model-choice.js';
import { formatVariables } from '../variable-space.js';
import { batchSlots } from './batch-slot.js';
import type { RunningCall } from './call-state.js';
import { errorMessage } from '../error-message.js';
import { finalRecorderNames } from './final-answer.js';
import type { HostCall, HostCallHandler } from './host-call.js';

/** What the core functions need of the loop. */
export interface CoreFunctionDeps {
  /** Calls at this depth or deeper make `sub_rlm` one plain model call. */
  readonly maxDepth: number;
  /** The model of plain calls (`llm_query`, a last-depth `sub_rlm`) unless code chooses one. */
  readonly plainModel: LanguageModel;
  /** The model of a child's steps unless code chooses one. */
  readonly childModel: LanguageModel;
  /** The models code may choose with `{ model }`. */
  readonly modelChoice: ModelChoice;
  /** One plain call to `model` for a host call; resolves with its text. */
  readonly plainCall: (
    call: RunningCall,
    model: LanguageModel,
    prompt: string,
    request: BridgeRequest,
  ) => Promise<string>;
  /** Starts a `sub_rlm` child call whose steps use `model`; resolves with its answer. */
  readonly startChild: (
    parent: RunningCall,
    task: SubTask,
    model: LanguageModel,
    signal: AbortSignal,
  ) => Promise<unknown>;
  /** Refuses a batch of `count` calls that the model call budget cannot hold (see `Budget`). */
  readonly admitBatch: (count: number, usage: string) => void;
}

/** One `sub_rlm` question: a query and the context its child sees. */
export interface SubTask {
  readonly query: string;
  readonly context: unknown;
}

/**
 * Host functions every sandbox has, dispatched through the bridge: `llm_query`,
 * `llm_query_batched`, `sub_rlm`, `sub_rlm_batched` and `SHOW_VARS`. `SUBMIT` and `FINAL_VAR`
 * are core names too, but only record a final answer and never go through the bridge (see
 * `final-answer.ts`). The model calls take `{ model }` as their last argument; a batch's
 * failures fill their own slots (see `batch-slot.ts`); an empty answer is returned with a
 * warning (event and note).
 */
export function coreFunctions(deps: CoreFunctionDeps): Record<string, HostCallHandler> {
  const plain = (host: HostCall, model: LanguageModel, prompt: string, what: string) =>
    deps
      .plainCall(host.call, model, prompt, host.request)
      .then((text) => warnIfEmpty(host, text, model, what), explainModel(model, deps.plainModel));
  /** A `sub_rlm` task: a child, or at the last depth one plain call. */
  const solve = (
    host: HostCall,
    task: SubTask,
    model: LanguageModel | undefined,
    what: string,
    usage: string,
  ) => {
    if (host.call.depth + 1 >= deps.maxDepth) {
      return plain(host, model ?? deps.plainModel, plainSubQueryPrompt(task, usage), what);
    }
    host.request.waiting = false;
    const childModel = model ?? deps.childModel;
    return deps
      .startChild(host.call, task, childModel, host.request.signal)
      .catch(explainModel(childModel, deps.childModel));
  };
  /** The model `{ model }` names for a plain call or a child, `undefined` for the default. */
  const chosen = (host: HostCall, optionsAt: number, usage: string, child: boolean) => {
    const { model } = readCallOptions(host.request.args[optionsAt], usage);
    if (model === undefined) return undefined;
    const lastDepth = host.call.depth + 1 >= deps.maxDepth;
    const base = child && !lastDepth ? deps.childModel : deps.plainModel;
    return deps.modelChoice.resolve(model, base, usage);
  };
  return {
    llm_query: (host) => {
      const usage = 'llm_query(prompt, options)';
      const prompt = readPrompt(host.request.args[0], 'llm_query(prompt)');
      const model = chosen(host, 1, usage, false) ?? deps.plainModel;
      return plain(host, model, prompt, 'llm_query');
    },
    llm_query_batched: async (host) => {
      const usage = 'llm_query_batched(prompts, options)';
      const prompts = readPrompts(host.request.args[0], 'llm_query_batched(prompts)');
      const model = chosen(host, 1, usage, false) ?? deps.plainModel;
      deps.admitBatch(prompts.length, 'llm_query_batched(prompts)');
      return batchSlots(
        await Promise.allSettled(
          prompts.map((prompt, index) =>
            plain(host, model, prompt, `llm_query_batched prompt ${index} of ${prompts.length}`),
          ),
        ),
      );
    },
    sub_rlm: (host) => {
      const [query, context] = host.request.args;
      const task = { query: readQuery(query, 'sub_rlm(query, context)'), context };
      const model = chosen(host, 2, 'sub_rlm(query, context, options)', true);
      return solve(host, task, model, 'sub_rlm', 'sub_rlm(query, context)');
    },
    sub_rlm_batched: async (host) => {
      const usage = 'sub_rlm_batched(tasks, options)';
      const tasks = readTasks(host.request.args[0]);
      const model = chosen(host, 1, usage, true);
      deps.admitBatch(tasks.length, 'sub_rlm_batched(tasks)');
      return batchSlots(
        await Promise.allSettled(
          tasks.map((task, index) =>
            solve(
              host,
              task,
              model,
              `sub_rlm_batched task ${index} of ${tasks.length}`,
              `sub_rlm_batched(tasks): task ${index}`,
            ),
          ),
        ),
      );
    },
    SHOW_VARS: ({ call, request }) => {
      request.waiting = false;
      return call.workspace.sandbox.listVariables().then((variables) =>
        formatVariables({
          variables,
          iteration: call.iteration,
          syncedAt: Date.now(),
          freshness: 'fresh',
        }),
      );
    },
  };
}

/** Every name the core gives model code as a host function, in the order sandboxes get them. */
export const coreFunctionNames: readonly string[] = [
  'llm_query',
  'llm_query_batched',
  'sub_rlm',
  'sub_rlm_batched',
  ...finalRecorderNames,
  'SHOW_VARS',
];

/**
 * An empty answer is returned as it is, with a `warning` event and a note shown after the
 * output of the block that asked: code that tests `if (answer)` still works, and the model
 * learns why its next step has nothing to go on.
 */
function warnIfEmpty(host: HostCall, text: string, model: LanguageModel, what: string): string {
  if (text.trim().length > 0) return text;
  host.emit({
    type: 'warning',
    code: 'empty-sub-answer',
    message: `${what}: ${model.modelId} answered with no text`,
  });
  host.note(
    `Warning: ${what} got an empty answer ("") from ${model.modelId}. Check the prompt (does it hold the text to work on?), ask again, or choose another model.`,
  );
  return text;
}

/**
 * A failure of a model code chose names the model, and for a request the provider refused
 * (an id it does not serve) says which models the run uses.
 */
function explainModel(model: LanguageModel, base: LanguageModel) {
  return (error: unknown): never => {
    if (model === base || !ModelCallError.isInstance(error)) throw error;
    const hint =
      error.reason === 'invalid-request'
        ? `; is ${JSON.stringify(model.modelId)} a model its provider serves? Leave out { model } to use ${base.modelId}`
        : '';
    throw new Error(`${model.modelId}: ${errorMessage(error)}${hint}`);
  };
}

function readQuery(query: unknown, usage: string): string {
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw new Error(`${usage} needs a non-empty query string; got ${describeValue(query)}`);
  }
  return query;
}

/** The tasks of `sub_rlm_batched(tasks)`: an array of `{ query, context }`. */
function readTasks(value: unknown): SubTask[] {
  const usage = 'sub_rlm_batched(tasks)';
  if (!Array.isArray(value)) {
    throw new Error(
      `${usage} needs an array of { query, context } objects; got ${describeValue(value)}`,
    );
  }
  return value.map((task: unknown, index) => {
    if (typeof task !== 'object' || task === null || Array.isArray(task)) {
      throw new Error(
        `${usage}: task ${index} needs to be an object { query, context }; got ${describeValue(task)}`,
      );
    }
    const { query, context } = task as { query?: unknown; context?: unknown };
    return { query: readQuery(query, `${usage}: task ${index}`), context };
  });
}

/** The prompt of a `sub_rlm` at the last depth: the query, then the context as text. */
function plainSubQueryPrompt({ query, context }: SubTask, usage: string): string {
  if (context === undefined || context === null) return query;
  const text = typeof context === 'string' ? context : toJsonText(context, usage);
  return `${query}\n\nContext:\n${text}`;
}
