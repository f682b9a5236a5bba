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
   * Replaces the script; arrivals start again from none. `onArrival` is called as each request
   * arrives, with its index from 0, before it is answered.
   */
  load(
    steps: readonly ScriptedChatStep[],
    delayMs: number,
    onArrival?: (index: number) => void,
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
  let arrivals: number[] = [];
  let firstMessages = '';
  let arrived: ((index: number) => void) | undefined;
  const server = await startFakeChatCompletionsServer({
    apiKey: null,
    // The bench reads its own arrivals: hundreds of growing request bodies kept would grow the
    // server's heap, and its collections would slow what the bench measures.
    keepRequests: 1,
    handler: (request): FakeChatReply | undefined => {
      const step = script[arrivals.length];
      if (arrivals.length === 0) firstMessages = JSON.stringify(request.messages);
      arrivals.push(performance.now());
      arrived?.(arrivals.length - 1);
      if (step === undefined) return undefined;
      const timing = delay > 0 ? { delayMs: delay } : {};
      return typeof step === 'string'
        ? fakeChatText(step, timing)
        : fakeChatError(step.errorStatus, timing);
    },
  });
  return {
    url: server.url,
    load(steps, delayMs, onArrival) {
      script = steps;
      arrived = onArrival;
      delay = delayMs;
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
