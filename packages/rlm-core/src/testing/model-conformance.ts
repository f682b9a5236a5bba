import { ModelCallError } from '../errors/model-call-error.js';
import type {
  GenerateRequest,
  LanguageModel,
  Message,
  ModelRetry,
  ToolDefinition,
} from '../language-model.js';
import { type ConformanceSuiteSettings, registerConformanceSuite } from './conformance-suite.js';

/** Token counts a scripted reply reports, in the provider-neutral meaning of `Usage`. */
export interface ModelConformanceUsage {
  /** Input tokens billed at the full price (cache reads excluded). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadTokens: number;
}

/**
 * One fake provider server started for one test: the suite scripts its replies in
 * provider-neutral terms, and the harness translates them to the provider's wire format. The
 * server must be strict: it answers a request its real API would reject with a 400, so a test
 * that gets a 200 proves the adapter sent a valid request.
 */
export interface ModelConformanceServer {
  /**
   * A model under test pointed at this server, with the given retries and an API key equal
   * to {@link ModelConformanceServer.secret}.
   */
  createModel(settings: {
    readonly maxRetries: number;
    /** The adapter's `maxResponseBytes`, when given. */
    readonly maxResponseBytes?: number;
  }): LanguageModel;
  /** The API key the model sends; no error message may contain it. At least 16 characters. */
  readonly secret: string;
  /** Answer the next request with text (finish reason: the end of the turn). */
  replyText(text: string, usage: ModelConformanceUsage): void;
  /** Answer the next request with one tool call (finish reason: tool use). */
  replyToolCall(call: {
    readonly id: string;
    readonly name: string;
    readonly input: Readonly<Record<string, unknown>>;
  }): void;
  /**
   * Answer the next request with an API error of this status; `retryAfterSeconds` sets the
   * `retry-after` header (fractions allowed).
   */
  replyError(status: number, options?: { readonly retryAfterSeconds?: number }): void;
  /** Drop the next request's connection without answering. */
  replyDroppedConnection(): void;
  /** Never answer the next request (until the client goes away). */
  replyHang(): void;
  /**
   * Answer the next request with 200 and an answer that never ends, as fast as the client
   * reads: streamed, text that keeps coming; unstreamed, a body that never closes.
   */
  replyEndless(): void;
  /** Bytes the endless answers sent before their clients went away, summed. */
  endlessBytesSent(): number;
  /** Requests received so far, valid or not. */
  requestCount(): number;
  /** The tool the last request forced the model to call, if any. */
  lastForcedTool(): string | undefined;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Settings of {@link runModelConformance}: `create` starts a fresh fake provider server for
 * each test, with the adapter pointed at it.
 */
export type ModelConformanceOptions = ConformanceSuiteSettings<
  () => Promise<ModelConformanceServer>
>;

const testTimeoutMs = 15_000;

const submitTool: ToolDefinition = {
  name: 'SUBMIT',
  description: 'Submit the final answer.',
  inputSchema: {
    type: 'object',
    properties: { answer: { type: 'string' } },
    required: ['answer'],
  },
};

const ask: GenerateRequest = {
  system: 'Answer briefly.',
  messages: [{ role: 'user', content: 'What is the answer?' }],
};

/**
 * Registers the provider-neutral contract of `LanguageModel` adapters as tests, run against a
 * strict fake of the provider's API: text; a tool call; a forced tool; a conversation whose tool
 * calls and results need pairing (a result missing, an orphan result, blank text, same-role
 * neighbours); `onText` seeing the text (a throwing listener ignored); abort rejecting with the signal's reason; 429 (with `retry-after`), 5xx and a
 * dropped connection retried with `onRetry` called; an answer that never ends cut at
 * `maxResponseBytes`; a 400 surfacing as a typed
 * `ModelCallError` that never carries the key; usage reported with cache reads. Adapters run
 * it first, then their own tests.
 *
 * @example
 * import { describe, expect, test } from 'vitest';
 * import { runModelConformance } from '@rlm/core/testing';
 * runModelConformance({
 *   name: 'my-provider',
 *   create: startMyFakeServerWithModel,
 *   api: { describe, expect, test },
 * });
 */
export function runModelConformance(options: ModelConformanceOptions): void {
  const { api } = options;
  const { expect } = api;
  const test = (name: string, fn: () => Promise<void>) => api.test(name, fn, testTimeoutMs);

  async function withServer(body: (server: ModelConformanceServer) => Promise<void>) {
    const server = await options.create();
    try {
      await body(server);
    } finally {
      await server.close();
    }
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    throw new Error('model conformance: expected the call to reject, but it resolved');
  }

  const register = () => {
    test('answers with text, the end of the turn, and usage', () =>
      withServer(async (server) => {
        server.replyText('forty-two', { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0 });
        const result = await server.createModel({ maxRetries: 0 }).generate(ask);
        expect(result.text).toBe('forty-two');
        expect(result.toolCalls).toEqual([]);
        expect(result.stopReason).toBe('end');
        expect(result.usage.inputTokens).toBe(12);
        expect(result.usage.outputTokens).toBe(3);
      }));

    test('onText sees the text; a throwing onText changes nothing', () =>
      withServer(async (server) => {
        server.replyText('streamed or not', {
          inputTokens: 1,
          outputTokens: 1,
          cacheReadTokens: 0,
        });
        server.replyText('second', { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0 });
        const model = server.createModel({ maxRetries: 0 });
        const pieces: string[] = [];
        const result = await model.generate(ask, { onText: (delta) => pieces.push(delta) });
        expect(pieces.join('')).toBe(result.text);
        const second = await model.generate(ask, {
          onText: () => {
            throw new Error('a broken listener');
          },
        });
        expect(second.text).toBe('second');
      }));

    test('reports cache reads apart from the full-price input', () =>
      withServer(async (server) => {
        server.replyText('ok', { inputTokens: 100, outputTokens: 5, cacheReadTokens: 40 });
        const { usage } = await server.createModel({ maxRetries: 0 }).generate(ask);
        expect(usage.inputTokens).toBe(100);
        expect(usage.cacheReadTokens).toBe(40);
        expect(usage.outputTokens).toBe(5);
      }));

    test('declares tool support and returns a tool call with its decoded input', () =>
      withServer(async (server) => {
        server.replyToolCall({ id: 'call_one', name: 'SUBMIT', input: { answer: '42' } });
        const model = server.createModel({ maxRetries: 0 });
        expect(model.supportsTools).toBe(true);
        const result = await model.generate({ ...ask, tools: [submitTool] });
        expect(result.toolCalls).toEqual([
          { id: 'call_one', name: 'SUBMIT', input: { answer: '42' } },
        ]);
        expect(result.stopReason).toBe('tool-call');
      }));

    test('forces a named tool', () =>
      withServer(async (server) => {
        server.replyToolCall({ id: 'call_forced', name: 'SUBMIT', input: { answer: 'x' } });
        await server
          .createModel({ maxRetries: 0 })
          .generate({ ...ask, tools: [submitTool], toolChoice: { tool: 'SUBMIT' } });
        expect(server.lastForcedTool()).toBe('SUBMIT');
      }));

    test('sends a conversation the strict API accepts: results paired, no blank text', () =>
      withServer(async (server) => {
        const messages: Message[] = [
          { role: 'user', content: 'Find it.' },
          { role: 'user', content: '   ' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'tool-call', call: { id: 'call_a', name: 'SUBMIT', input: { answer: 'a' } } },
              { type: 'tool-call', call: { id: 'call_b', name: 'SUBMIT', input: undefined } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Only one result came back.' },
              { type: 'tool-result', toolCallId: 'call_b', content: '', isError: true },
            ],
          },
          { role: 'assistant', content: '' },
          { role: 'assistant', content: 'Thinking.' },
          {
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: 'call_nowhere', content: 'stray' }],
          },
        ];
        server.replyText('accepted', { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0 });
        const result = await server
          .createModel({ maxRetries: 0 })
          .generate({ system: 'Be brief.', messages, tools: [submitTool] });
        expect(result.text).toBe('accepted');
        expect(server.requestCount()).toBe(1);
      }));

    test('an abort rejects with the signal reason and is not retried', () =>
      withServer(async (server) => {
        server.replyHang();
        const controller = new AbortController();
        const reason = new Error('stop now');
        const pending = server.createModel({ maxRetries: 2 }).generate(ask, {
          signal: controller.signal,
        });
        // Abort once the request is in flight, however slow the machine.
        while (server.requestCount() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        controller.abort(reason);
        expect(await rejection(pending)).toBe(reason);
        expect(server.requestCount()).toBe(1);
        const early = new AbortController();
        early.abort(reason);
        const before = server.requestCount();
        expect(
          await rejection(
            server.createModel({ maxRetries: 2 }).generate(ask, { signal: early.signal }),
          ),
        ).toBe(reason);
        expect(server.requestCount()).toBe(before);
      }));

    test('retries a 429 after its retry-after and announces the wait', () =>
      withServer(async (server) => {
        server.replyError(429, { retryAfterSeconds: 0.05 });
        server.replyText('after the wait', { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0 });
        const retries: ModelRetry[] = [];
        const result = await server
          .createModel({ maxRetries: 2 })
          .generate(ask, { onRetry: (retry) => retries.push(retry) });
        expect(result.text).toBe('after the wait');
        expect(retries.length).toBe(1);
        expect(retries[0]?.reason).toBe('rate-limited');
        expect(retries[0]?.status).toBe(429);
        expect(retries[0]?.requestedByApi).toBe(true);
        expect(retries[0]?.delayMs).toBe(50);
        expect(server.requestCount()).toBe(2);
      }));

    test('retries a 5xx and a dropped connection', () =>
      withServer(async (server) => {
        server.replyError(500, { retryAfterSeconds: 0 });
        server.replyDroppedConnection();
        server.replyText('recovered', { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0 });
        const retries: ModelRetry[] = [];
        const result = await server
          .createModel({ maxRetries: 2 })
          .generate(ask, { onRetry: (retry) => retries.push(retry) });
        expect(result.text).toBe('recovered');
        expect(retries.map((retry) => retry.reason)).toEqual(['server', 'network']);
        expect(server.requestCount()).toBe(3);
      }));

    test('a 5xx past the retries rejects with a retryable ModelCallError', () =>
      withServer(async (server) => {
        server.replyError(503, { retryAfterSeconds: 0 });
        server.replyError(503, { retryAfterSeconds: 0 });
        const error = await rejection(server.createModel({ maxRetries: 1 }).generate(ask));
        expect(ModelCallError.isInstance(error)).toBe(true);
        const failure = error as ModelCallError;
        expect(failure.retryable).toBe(true);
        expect(failure.reason).toBe('server');
        expect(failure.status).toBe(503);
        expect(server.requestCount()).toBe(2);
      }));

    test('an answer that never ends is cut at maxResponseBytes, retried, then fails as one retryable line', () =>
      withServer(async (server) => {
        const maxResponseBytes = 256 * 1024;
        server.replyEndless();
        server.replyEndless();
        const retries: ModelRetry[] = [];
        const error = await rejection(
          server
            .createModel({ maxRetries: 1, maxResponseBytes })
            .generate(ask, { onRetry: (retry) => retries.push(retry) }),
        );
        expect(ModelCallError.isInstance(error)).toBe(true);
        const failure = error as ModelCallError;
        expect(failure.retryable).toBe(true);
        expect(failure.reason).toBe('server');
        expect(failure.settings).toContain('maxResponseBytes');
        expect(failure.message).toContain('sent more than maxResponseBytes (256 KiB)');
        expect(failure.message).not.toContain('\n');
        expect(failure.message).not.toContain(server.secret);
        expect(retries.map((retry) => retry.reason)).toEqual(['server']);
        expect(retries[0]!.detail).toBe('sent more than 256 KiB');
        expect(server.requestCount()).toBe(2);
        // The client cut each answer near the cap: the server wrote little more than what
        // fills the socket's buffers, never the gigabytes it would have gone on to.
        expect(server.endlessBytesSent()).toBeLessThan(2 * 64 * 1024 * 1024);
      }));

    test('a 400 rejects at once with a typed error that does not carry the key', () =>
      withServer(async (server) => {
        server.replyError(400);
        const error = await rejection(server.createModel({ maxRetries: 2 }).generate(ask));
        expect(ModelCallError.isInstance(error)).toBe(true);
        const failure = error as ModelCallError;
        expect(failure.status).toBe(400);
        expect(failure.retryable).toBe(false);
        expect(failure.reason).toBe('invalid-request');
        expect(failure.message).not.toContain(server.secret);
        expect(failure.message).not.toContain('\n');
        expect(server.requestCount()).toBe(1);
      }));
  };

  registerConformanceSuite(options, 'LanguageModel conformance', register);
}
