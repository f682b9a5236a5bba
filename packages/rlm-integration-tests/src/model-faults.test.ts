import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { createRLM, hashContext, ModelCallError, type RlmEvent, runKey } from '@rlm/core';
import { createAnthropicModel } from '@rlm/anthropic';
import {
  type FakeMessagesServer,
  type FakeReply,
  fakeDelay,
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeMessage,
  fakeRaw,
  fakeText,
  fakeToolUse,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-ant-model-faults-key-never-leaks';
const query = 'What is six times seven?';
const context = 'rows: 1, 2, 3';
/** Retries of transient faults: few, so that running out of them is quick. */
const maxRetries = 2;
/** Time one attempt may take; the fake answers at once unless told to wait (generous: a loaded CI machine must never time out an answer that came at once). */
const attemptTimeoutMs = 3_000;
/** The adapter's first backoff without `retry-after`: 0.5 s. */
const minimumBackoffMs = 500;
/**
 * Arrival times at the fake server lag the adapter's own timers by the connection and the
 * scheduling of two event loops, differently for each request: on a loaded machine by tens of ms.
 */
const clockToleranceMs = 250;

/** The step before each fault: stores a record and defines a variable, then a checkpoint. */
const storeStep = fakeText(
  repl(
    'await store("partial", { rows: [1, 2, 3] }, { description: "the rows read so far" });\nconst total = 6 * 7;',
  ),
);
const submitTotal = fakeToolUse('SUBMIT', { variable: 'total' });

/** A fake Messages API that answers `replies` in order and notes when each request arrived. */
async function startScripted(
  replies: readonly FakeReply[],
): Promise<{ server: FakeMessagesServer; arrivals: number[] }> {
  const arrivals: number[] = [];
  const queue = [...replies];
  const server = await startFakeMessagesServer({
    handler: () => {
      arrivals.push(performance.now());
      return queue.shift();
    },
  });
  return { server, arrivals };
}

/**
 * The adapter against `server`. Fault cases use a short attempt timeout; cases about large
 * responses pass a long one, so a loaded machine's slow stream is not mistaken for a fault.
 */
function modelFor(
  server: FakeMessagesServer,
  timeoutMs = attemptTimeoutMs,
  settings: { maxResponseBytes?: number } = {},
) {
  return createAnthropicModel({ apiKey, baseURL: server.url, maxRetries, timeoutMs, ...settings });
}

/** The attempt timeout of cases whose subject is not a timeout. */
const patientTimeoutMs = 60_000;

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('model faults through the Anthropic SDK, a fake Messages API and the SES sandbox', () => {
  let directory: string;
  let databasePath: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rlm-model-faults-'));
    databasePath = join(directory, 'rlm.sqlite');
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const transient = [
    {
      fault: '429 rate_limit_error with retry-after: 0.6',
      reply: fakeError(429, { retryAfterSeconds: 0.6 }),
      status: 429,
      minimumWaitMs: 600,
    },
    { fault: '500 api_error', reply: fakeError(500), status: 500, minimumWaitMs: minimumBackoffMs },
    {
      fault: '529 overloaded_error',
      reply: fakeError(529),
      status: 529,
      minimumWaitMs: minimumBackoffMs,
    },
    {
      fault: 'a dropped connection',
      reply: fakeDroppedConnection(),
      status: undefined,
      minimumWaitMs: minimumBackoffMs,
    },
    {
      fault: `a response slower than timeoutMs (${attemptTimeoutMs} ms)`,
      reply: fakeDelay(3 * attemptTimeoutMs, submitTotal),
      status: undefined,
      minimumWaitMs: attemptTimeoutMs + minimumBackoffMs,
    },
    {
      fault: 'a hung API (never answers)',
      reply: fakeHang(),
      status: undefined,
      minimumWaitMs: attemptTimeoutMs + minimumBackoffMs,
    },
    {
      fault: 'headers at once and a body later than timeoutMs',
      reply: fakeText('late', { bodyDelayMs: 3 * attemptTimeoutMs }),
      status: 200,
      minimumWaitMs: attemptTimeoutMs + minimumBackoffMs,
    },
    {
      fault: 'a 200 with an HTML page',
      reply: fakeRaw('text/html', '<html><body>Service Unavailable</body></html>'),
      status: 200,
      minimumWaitMs: minimumBackoffMs,
    },
    {
      fault: 'a 200 with a JSON string',
      reply: fakeRaw('application/json', '"overloaded"'),
      status: 200,
      minimumWaitMs: minimumBackoffMs,
    },
    {
      fault: 'a 200 whose body is cut mid-stream',
      reply: fakeText('z'.repeat(4_000), { cutAfterBytes: 200 }),
      status: 200,
      minimumWaitMs: minimumBackoffMs,
    },
  ];

  test.each(transient)('$fault is retried after a wait and the run finishes', async (fault) => {
    const { server, arrivals } = await startScripted([storeStep, fault.reply, submitTotal]);
    const artifacts = await createSqliteArtifactStore({ path: databasePath });
    try {
      await using rlm = createRLM({ model: modelFor(server), sandbox: sandboxFactory, artifacts });
      const result = await rlm.query(query, context);
      expect(result.answer).toBe(42);
      expect(server.requests.map((request) => request.status)).toEqual([200, fault.status, 200]);
      expect(server.requests.every((request) => request.apiKey === apiKey)).toBe(true);
      expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(
        fault.minimumWaitMs - clockToleranceMs,
      );
      const record = await artifacts.scoped(result.runKey!).get('partial');
      expect(record?.value).toEqual({ rows: [1, 2, 3] });
    } finally {
      await artifacts.close();
      await server.close();
    }
  });

  test('a max_tokens stop inside a code block: the complete block runs, the cut one does not, the model is told', async () => {
    const { server } = await startScripted([
      fakeText(
        `First the base.\n${repl('const base = 6;\nprint("base ready")')}\nNow the product:\n${'```repl'}\nconst total = base * 7;\nprint(tot`,
        { stopReason: 'max_tokens' },
      ),
      fakeText(repl('const total = base * 7;')),
      submitTotal,
    ]);
    try {
      await using rlm = createRLM({ model: modelFor(server), sandbox: sandboxFactory });
      const events = await collect(rlm.queryStream(query, context));
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 42 });
      const firstStep = events.filter(
        (event) => (event.type === 'code' || event.type === 'execution') && event.iteration === 1,
      );
      // Only the complete block ran: one code event, one execution, no SyntaxError anywhere.
      expect(firstStep.map((event) => event.type)).toEqual(['code', 'execution']);
      expect(firstStep[0]).toMatchObject({ code: 'const base = 6;\nprint("base ready")' });
      expect(firstStep[1]).toMatchObject({ output: 'base ready' });
      expect(events.some((event) => event.type === 'execution' && event.error)).toBe(false);
      expect(
        events.find((event) => event.type === 'warning' && event.code === 'response-cut'),
      ).toBeDefined();
      expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
      // The next request tells the model its response was cut and how to go on.
      const second = JSON.stringify(server.requests[1]!.body);
      expect(second).toContain('base ready');
      expect(second).toContain('cut off at the output limit (max_tokens)');
      expect(second).toContain('unfinished block was NOT run');
      expect(second).toContain('shorter code blocks');
      expect(second).toContain('keep large text in variables');
      expect(second).not.toContain('SyntaxError');
    } finally {
      await server.close();
    }
  });

  test('each retry is a model-retry event with the attempt, the wait and the reason', async () => {
    const { server } = await startScripted([
      fakeError(429, { retryAfterSeconds: 0.2 }),
      fakeRaw('text/html', '<html>gateway</html>'),
      fakeToolUse('SUBMIT', { answer: 'after two retries' }),
    ]);
    try {
      await using rlm = createRLM({
        model: modelFor(server),
        sandbox: sandboxFactory,
      });
      const events = await collect(rlm.queryStream(query, context));
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'after two retries' });
      const retries = events.filter((event) => event.type === 'model-retry');
      expect(retries).toMatchObject([
        {
          attempt: 2,
          maxAttempts: 3,
          delayMs: 200,
          requestedByApi: true,
          reason: 'rate-limited',
          status: 429,
          depth: 0,
        },
        { attempt: 3, maxAttempts: 3, delayMs: 1_000, requestedByApi: false, reason: 'server' },
      ]);
      expect((retries[1] as { detail: string }).detail).toContain('content-type text/html');
    } finally {
      await server.close();
    }
  });

  test('10,000 code blocks in one response: 20 run, the rest are reported as not run, the next prompt is bounded', async () => {
    const blocks = Array.from({ length: 10_000 }, (_, index) =>
      repl(`globalThis.ran = (globalThis.ran ?? 0) + 1; print("block ${index}")`),
    ).join('\n');
    const { server } = await startScripted([
      fakeText(blocks),
      fakeText(repl('const total = globalThis.ran;')),
      submitTotal,
    ]);
    try {
      await using rlm = createRLM({
        model: modelFor(server, patientTimeoutMs),
        sandbox: sandboxFactory,
      });
      const started = performance.now();
      const events = await collect(rlm.queryStream(query, context));
      const elapsed = performance.now() - started;
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 20 });
      expect(events.filter((event) => event.type === 'execution')).toHaveLength(21);
      expect(
        events.find((event) => event.type === 'warning' && event.code === 'code-blocks-not-run'),
      ).toMatchObject({ message: 'The response had 10000 code blocks: only the first 20 ran.' });
      const second = JSON.stringify(server.requests[1]!.body);
      expect(second).toContain('the other 9980 were NOT run');
      expect(second).toContain('block 19');
      expect(second).not.toContain('block 20\\n');
      // The response itself is kept as head and tail with its true length.
      expect(second).toMatch(/characters omitted; the response was \d+ characters/);
      expect(second.length).toBeLessThan(100_000);
      console.log(
        `10,000 blocks: ${Math.round(elapsed)} ms for the run; next request ${second.length} characters (the response was ${blocks.length})`,
      );
    } finally {
      await server.close();
    }
  }, 120_000);

  test('a 10 MB response is not sent back whole: head and tail with the true length', async () => {
    const huge = `Here is everything: ${'0123456789'.repeat(1_000_000)} and that is all.`;
    const { server } = await startScripted([
      fakeText(huge),
      fakeToolUse('SUBMIT', { answer: 'short now' }),
    ]);
    try {
      await using rlm = createRLM({
        // Above the default response cap: this case is about what the history keeps.
        model: modelFor(server, patientTimeoutMs, { maxResponseBytes: 64 * 1024 * 1024 }),
        sandbox: sandboxFactory,
        limits: { maxIterations: 3 },
      });
      const events = await collect(rlm.queryStream(query, context));
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'short now' });
      const second = JSON.stringify(server.requests[1]!.body);
      expect(second).toContain('Here is everything: 0123');
      expect(second).toContain('and that is all.');
      expect(second).toContain(`the response was ${huge.length} characters`);
      expect(second.length).toBeLessThan(60_000);
      console.log(`10 MB response: next request ${second.length} characters`);
    } finally {
      await server.close();
    }
  }, 120_000);

  test('malformed tool calls each get an error tool_result, the run finishes', async () => {
    const { server } = await startScripted([
      fakeToolUse('SUBMIT', 'a string, not an object', { id: 'toolu_string' }),
      fakeMessage([
        { type: 'tool_use', id: 'toolu_fields', name: 'SUBMIT', input: { nonsense: 1 } },
        { type: 'tool_use', id: 'toolu_array', name: 'SUBMIT', input: [1, 2] },
        { type: 'tool_use', id: 'toolu_unknown', name: 'rm_rf', input: { path: '/' } },
      ]),
      fakeToolUse('SUBMIT', { answer: 'fixed' }),
    ]);
    try {
      await using rlm = createRLM({ model: modelFor(server), sandbox: sandboxFactory });
      const events = await collect(rlm.queryStream(query, context));
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'fixed' });
      const warnings = events.filter(
        (event) => event.type === 'warning' && event.code === 'submit-unreadable',
      );
      expect(warnings).toHaveLength(3);
      // The fake validates every request: each tool_use got its tool_result.
      expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
      const last = server.requests[2]!.body as {
        messages: { content: string | { type: string; [key: string]: unknown }[] }[];
      };
      const toolResults = last.messages
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .filter((block) => block.type === 'tool_result');
      expect(toolResults.map((block) => [block.tool_use_id, block.is_error])).toEqual([
        ['toolu_string', true],
        ['toolu_fields', true],
        ['toolu_array', true],
        ['toolu_unknown', true],
      ]);
      expect(JSON.stringify(toolResults)).toContain('Unknown tool rm_rf');
    } finally {
      await server.close();
    }
  });

  const fatal = [
    {
      fault: '400 invalid_request_error',
      replies: [fakeError(400, { message: 'prompt is too long' })],
      status: 400,
      retryable: false,
    },
    { fault: '401 authentication_error', replies: [fakeError(401)], status: 401, retryable: false },
    { fault: '403 permission_error', replies: [fakeError(403)], status: 403, retryable: false },
    { fault: '404 not_found_error', replies: [fakeError(404)], status: 404, retryable: false },
    {
      fault: `529 overloaded_error until ${maxRetries} retries run out`,
      replies: Array.from({ length: maxRetries + 1 }, () =>
        fakeError(529, { retryAfterSeconds: 0.05 }),
      ),
      status: 529,
      retryable: true,
    },
  ];

  test.each(fatal)(
    '$fault fails the run with a ModelCallError; what was stored stays and the run resumes',
    async (fault) => {
      const { server } = await startScripted([storeStep, ...fault.replies]);
      const artifacts = await createSqliteArtifactStore({ path: databasePath });
      try {
        await using rlm = createRLM({
          model: modelFor(server),
          sandbox: sandboxFactory,
          artifacts,
        });
        const error = await rlm.query(query, context).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(ModelCallError.isInstance(error)).toBe(true);
        const failure = error as ModelCallError;
        expect(failure.name).toBe('ModelCallError');
        expect(failure.status).toBe(fault.status);
        expect(failure.retryable).toBe(fault.retryable);
        expect(failure.message).toContain(String(fault.status));
        expect(failure.message).not.toMatch(/\n/);
        const everything = [
          failure.message,
          String(failure.stack),
          JSON.stringify(failure),
          String(failure.cause),
        ].join('\n');
        expect(everything).not.toContain(apiKey);
        // The first request, then the fault and its retries, if any.
        expect(server.requests).toHaveLength(1 + fault.replies.length);
      } finally {
        await artifacts.close();
        await server.close();
      }

      // Nothing stored before the fault is lost, even for another process opening the file.
      const key = runKey(query, hashContext(context));
      const reopened = await createSqliteArtifactStore({ path: databasePath });
      const { server: resumedServer } = await startScripted([
        fakeText(repl('const back = await load("partial");\nSUBMIT(total + back.rows.length);')),
      ]);
      try {
        const record = await reopened.scoped(key).get('partial');
        expect(record).toMatchObject({
          value: { rows: [1, 2, 3] },
          description: 'the rows read so far',
        });
        const summaries = await reopened.listCheckpoints(key);
        expect(summaries.length).toBeGreaterThan(0);
        for (const summary of summaries) {
          expect((await reopened.loadCheckpoint(key, summary.id)).id).toBe(summary.id);
        }
        const latest = await reopened.latestCheckpoint(key);
        expect(latest).toMatchObject({ iteration: 1, variableNames: ['total'] });
        // Serialised inside the sandbox (structured clone), not as JSON.
        expect(deserialize(latest!.serializedVariables.total!)).toBe(42);

        await using resumed = createRLM({
          model: modelFor(resumedServer),
          sandbox: sandboxFactory,
          artifacts: reopened,
        });
        const events = await collect(resumed.queryStream(query, context, { resume: true }));
        expect(events.find((event) => event.type === 'resumed')).toMatchObject({
          iteration: 1,
          restored: ['total'],
        });
        expect(events.at(-1)).toMatchObject({ type: 'final', answer: 45 });
        expect(resumedServer.requests).toHaveLength(1);
        expect(JSON.stringify(resumedServer.requests[0]!.body)).toContain(
          'resumed after iteration 1',
        );
      } finally {
        await reopened.close();
        await resumedServer.close();
      }
    },
  );
});
