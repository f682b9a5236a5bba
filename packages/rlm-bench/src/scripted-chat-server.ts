import {
  type FakeChatReply,
  fakeChatError,
  fakeChatText,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';

/** One scripted reply: the model's text, or an API error status (400: not retried). */
export type ScriptedChatStep = string | { readonly errorStatus: number };

/**
 * A loopback OpenAI Chat Completions server for `rlm --model openai:<id> --base-url <url>`
 * that answers from a script loaded before each run, each reply after `delayMs`, and records
 * when each request arrived: the model's view of a run's steps.
 */
export interface ScriptedChatServer extends AsyncDisposable {
  /** The base URL to pass as `--base-url`. */
  readonly url: string;
  /**
   * Replaces the script; arrivals start again from none. `onArrival` is told each request's
   * index (from 0) as it arrives; `lastDelayMs` delays the last reply (default `delayMs`).
   */
  load(
    steps: readonly ScriptedChatStep[],
    delayMs: number,
    options?: { onArrival?: (index: number) => void; lastDelayMs?: number },
  ): void;
  /** When each request since the last `load` arrived (`performance.now()`), in order. */
  readonly arrivals: readonly number[];
  /** The messages of the first request since the last `load`, as JSON; `''` before it. */
  readonly firstMessages: string;
}

/** Starts a {@link ScriptedChatServer} (any API key is accepted). */
export async function startScriptedChatServer(): Promise<ScriptedChatServer> {
  let script: readonly ScriptedChatStep[] = [];
  let delay = 0;
  let lastDelay = 0;
  let onArrival: ((index: number) => void) | undefined;
  let arrivals: number[] = [];
  let firstMessages = '';
  const server = await startFakeChatCompletionsServer({
    apiKey: null,
    // The bench reads its own arrivals: hundreds of growing request bodies kept would grow the
    // server's heap, and its collections would slow what the bench measures.
    keepRequests: 1,
    handler: (request): FakeChatReply | undefined => {
      const index = arrivals.length;
      const step = script[index];
      if (index === 0) firstMessages = JSON.stringify(request.messages);
      arrivals.push(performance.now());
      onArrival?.(index);
      if (step === undefined) return undefined;
      const stepDelay = index === script.length - 1 ? lastDelay : delay;
      const timing = stepDelay > 0 ? { delayMs: stepDelay } : {};
      return typeof step === 'string'
        ? fakeChatText(step, timing)
        : fakeChatError(step.errorStatus, timing);
    },
  });
  return {
    url: server.url,
    load(steps, delayMs, options = {}) {
      script = steps;
      delay = delayMs;
      lastDelay = options.lastDelayMs ?? delayMs;
      onArrival = options.onArrival;
      arrivals = [];
      firstMessages = '';
    },
    get arrivals() {
      return arrivals;
    },
    get firstMessages() {
      return firstMessages;
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
}
