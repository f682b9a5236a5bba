import { describeValue } from '../bridge/describe-value.js';
import { readPrompt, readPrompts, toJsonText } from '../bridge/read-prompt.js';
import { formatVariables } from '../variable-space.js';
import type { RunningCall } from './call-state.js';
import type { HostCallHandler } from './host-call.js';
import { finalRecorderNames } from './final-answer.js';
import type { BridgeRequest } from '../bridge/bridge-router.js';

/** What the core functions need of the loop. */
export interface CoreFunctionDeps {
  /** Calls at this depth or deeper make `sub_rlm` one plain model call. */
  readonly maxDepth: number;
  /** One plain call to the sub-model for a host call; resolves with its text. */
  readonly plainCall: (
    call: RunningCall,
    prompt: string,
    request: BridgeRequest,
  ) => Promise<string>;
  /** Starts a `sub_rlm` child call; resolves with its answer. */
  readonly startChild: (
    parent: RunningCall,
    query: string,
    context: unknown,
    signal: AbortSignal,
  ) => Promise<unknown>;
}

/**
 * Host functions every sandbox has, dispatched through the bridge: `llm_query`,
 * `llm_query_batched`, `sub_rlm` and `SHOW_VARS`. `SUBMIT` and `FINAL_VAR` are core names too,
 * but only record a final answer and never go through the bridge (see `final-answer.ts`).
 */
export function coreFunctions(deps: CoreFunctionDeps): Record<string, HostCallHandler> {
  return {
    llm_query: ({ call, request }) =>
      deps.plainCall(call, readPrompt(request.args[0], 'llm_query(prompt)'), request),
    llm_query_batched: ({ call, request }) => {
      const prompts = readPrompts(request.args[0], 'llm_query_batched(prompts)');
      return Promise.all(prompts.map((prompt) => deps.plainCall(call, prompt, request)));
    },
    sub_rlm: ({ call, request }) => {
      const [query, context] = request.args;
      if (typeof query !== 'string' || query.trim().length === 0) {
        throw new Error(
          `sub_rlm(query, context) needs a non-empty query string; got ${describeValue(query)}`,
        );
      }
      if (call.depth + 1 >= deps.maxDepth) {
        return deps.plainCall(call, plainSubQueryPrompt(query, context), request);
      }
      request.waiting = false;
      return deps.startChild(call, query, context, request.signal);
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
  ...finalRecorderNames,
  'SHOW_VARS',
];

/** The prompt of a `sub_rlm` at the last depth: the query, then the context as text. */
function plainSubQueryPrompt(query: string, context: unknown): string {
  if (context === undefined || context === null) return query;
  const text =
    typeof context === 'string' ? context : toJsonText(context, 'sub_rlm(query, context)');
  return `${query}\n\nContext:\n${text}`;
}
