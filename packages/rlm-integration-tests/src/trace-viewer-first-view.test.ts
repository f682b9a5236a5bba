import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAnthropicModel } from '@rlm/anthropic';
import { fakeError, fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';
import { createRLM } from '@rlm/core';
import {
  createTraceRecorder,
  expandModelCalls,
  renderTraceHtml,
  type TraceDocument,
} from '@rlm/trace';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { sandboxFactory } from './sandbox-under-test.js';

/**
 * The HTML trace of a real run (the Anthropic adapter against the fake Messages API, the real
 * sandbox) in real Chromium: what the first view shows, the timeline drawn in proportion to the
 * times the trace holds, retries, and the whole prompts on demand.
 */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
/** A sub-call prompt far longer than the events' 300-character excerpts. */
const longPrompt = `Summarise: ${'the quick brown fox jumps over the lazy dog. '.repeat(50)}END`;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-trace-first-view-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/**
 * A 2-step run with known waits: the first request fails once (a 500, retried after the
 * adapter's backoff), then the model answers after 600 ms with code whose `llm_query` is answered
 * after 1,500 ms; the second step answers after 300 ms.
 */
async function recordRun(): Promise<TraceDocument> {
  let requests = 0;
  await using server = await startFakeMessagesServer({
    handler: (request) => {
      requests += 1;
      if (requests === 1) return fakeError(500);
      const last = request.messages.at(-1)!.content;
      const text =
        typeof last === 'string'
          ? last
          : last.map((block) => (block.type === 'text' ? String(block.text) : '')).join('');
      if (text.startsWith('Summarise:')) return fakeText('a fox and a dog', { delayMs: 1_500 });
      const steps = request.messages.filter((message) => message.role === 'assistant').length;
      return steps === 0
        ? fakeText(
            repl(`const gist = await llm_query(${JSON.stringify(longPrompt)});\nprint(gist)`),
            {
              delayMs: 600,
            },
          )
        : fakeText('FINAL(a fox and a dog)', { delayMs: 300 });
    },
  });
  const llm = createAnthropicModel({ apiKey: 'sk-ant-test', baseURL: server.url });
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
  const recorder = createTraceRecorder();
  for await (const event of rlm.queryStream('What does the text say?', 'some text')) {
    recorder.record(event);
  }
  return recorder.finish();
}

async function open(trace: TraceDocument, name: string) {
  const file = path.join(directory, `${name}.html`);
  await writeFile(file, renderTraceHtml(trace));
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="true"]');
  return { browser, page };
}

/** The share of the root's bar each kind of segment covers, in percent. */
function shares(page: Page): Promise<Record<string, number>> {
  return page
    .locator('.row .bar')
    .first()
    .evaluate((bar) => {
      const total = bar.getBoundingClientRect().width;
      const result: Record<string, number> = {};
      for (const segment of bar.querySelectorAll('.seg')) {
        const kind = [...segment.classList].find((name) => name.startsWith('seg-'))!.slice(4);
        result[kind] = (result[kind] ?? 0) + (segment.getBoundingClientRect().width / total) * 100;
      }
      return result;
    });
}

describe('the first view of a trace, in a real browser', () => {
  test('the question, the answer, the totals and a timeline in proportion; retries with their time', async () => {
    const trace = await recordRun();
    expect(trace.status).toBe('answered');
    const [first, second] = trace.calls[0]!.steps;
    const llmQuery = first!.hostCalls[0]!;
    // The trace's own times; the drawing must follow them, whatever the machine's speed.
    const span = trace.endedAt! - trace.startedAt;
    const retry = first!.retries!.lastAttemptAt - first!.startedAt;
    const model =
      first!.respondedAt! -
      first!.retries!.lastAttemptAt +
      (second!.respondedAt! - second!.startedAt);
    const waiting = llmQuery.durationMs!;
    expect(first!.retries).toMatchObject({ count: 1 });
    expect(waiting).toBeGreaterThanOrEqual(1_500);

    const { browser, page } = await open(trace, 'first-view');
    await using _browser = browser;
    // All of it in the first screen, without a click or a scroll.
    for (const selector of ['header .query', '#outcome pre.answer', '.totals', '.row .bar']) {
      const box = (await page.locator(selector).boundingBox())!;
      expect(box.y + box.height, selector).toBeLessThan(900);
    }
    await expect(page.locator('header .query').textContent()).resolves.toBe(
      'What does the text say?',
    );
    await expect(page.locator('#outcome .label').textContent()).resolves.toBe(
      'answer (final-text)',
    );
    await expect(page.locator('#outcome pre.answer').textContent()).resolves.toBe(
      'a fox and a dog',
    );
    const totals = await page.locator('.totals').textContent();
    expect(totals).toContain(' · 2 steps · 1 call · depth 0 · ');
    expect(totals).toContain(' · 3 model calls · ');

    const drawn = await shares(page);
    const expected = {
      retry: (retry / span) * 100,
      model: (model / span) * 100,
      waiting: (waiting / span) * 100,
    };
    for (const [kind, share] of Object.entries(expected)) {
      // Each segment is cut to the timeline's 400 slices: a few tenths of a percent either way.
      expect(
        Math.abs((drawn[kind] ?? 0) - share),
        `${kind}: drawn ${drawn[kind]}%, took ${share}%`,
      ).toBeLessThan(1.5);
    }

    // The retried step says so, with the time it took; the model time is the answer's own.
    const summary = await page
      .locator('details.call[data-depth="0"] > .body > .steps > details.step > summary')
      .first()
      .textContent();
    expect(summary).not.toContain('retries 0 ms');
    expect(summary).toMatch(
      /^step 1model [\d.]+ m?s · retries [\d.]+ m?s \(1 retry\) · sandbox [\d.]+ m?s · waiting [\d.]+ m?s · 1 block · 1× llm_query · /,
    );
  }, 60_000);

  test("each step's system prompt and messages, and a sub-call's whole prompt and answer, on demand", async () => {
    const trace = await recordRun();
    const requests = expandModelCalls(trace.calls[0]!);
    const { browser, page } = await open(trace, 'prompts');
    await using _browser = browser;
    const step = page
      .locator('details.call[data-depth="0"] > .body > .steps > details.step')
      .nth(1);
    await step.locator('> summary').click();
    const request = step.locator('> .body > details.request');
    await expect(request.locator('> summary').textContent()).resolves.toMatch(
      /^what the model was asked: the system prompt and 3 messages \(2 new, [\d,]+ characters\)$/,
    );
    await request.locator('> summary').click();
    await expect(request.locator('pre.system').textContent()).resolves.toBe(
      requests.steps[1]!.system,
    );
    // One block a message part, labelled with its message: the three messages, in order.
    const labels = await request
      .locator('pre.message')
      .evaluateAll((blocks) =>
        blocks.map((block) => block.previousElementSibling?.textContent ?? ''),
      );
    const texts = await request.locator('pre.message').allTextContents();
    const numbers = labels.map((label) => Number(/^message (\d+)/.exec(label)?.[1]));
    expect([...new Set(numbers)]).toEqual([1, 2, 3]);
    const textOf = (number: number) =>
      texts.filter((_, index) => numbers[index] === number).join('\n');
    expect(textOf(1)).toContain('Query: What does the text say?');
    expect(textOf(3)).toContain('a fox and a dog');

    const firstStep = page
      .locator('details.call[data-depth="0"] > .body > .steps > details.step')
      .first();
    await firstStep.locator('> summary').click();
    const host = firstStep.locator('> .body > details.host');
    await host.locator('> summary').click();
    // The excerpt is cut; the whole prompt is one click away.
    await expect(
      host.locator('> .body pre[data-field="arguments"]').textContent(),
    ).resolves.toMatch(/… \(\d+ chars\)$/);
    const served = host.locator('> .body > details.served');
    await expect(served.locator('> summary').textContent()).resolves.toMatch(
      new RegExp(
        `^model call: the whole prompt \\(${longPrompt.length.toLocaleString('en-US')} characters\\) and answer \\(15 characters\\)`,
      ),
    );
    await served.locator('> summary').click();
    await expect(served.locator('pre.message').textContent()).resolves.toBe(longPrompt);
    await expect(served.locator('pre[data-field="response"]').textContent()).resolves.toBe(
      'a fox and a dog',
    );
  }, 60_000);

  test('a failed run shows its error first', async () => {
    const recorder = createTraceRecorder();
    const llm = createAnthropicModel({
      apiKey: 'sk-ant-test',
      baseURL: 'http://127.0.0.1:9',
      maxRetries: 0,
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    await expect(
      (async () => {
        for await (const event of rlm.queryStream('Anything?', 'x')) recorder.record(event);
      })(),
    ).rejects.toThrow();
    const trace = recorder.finish(new Error('the API could not be reached'));
    const { browser, page } = await open(trace, 'failed');
    await using _browser = browser;
    await expect(page.locator('#outcome .label').textContent()).resolves.toBe('the run failed');
    await expect(page.locator('#outcome pre.error').textContent()).resolves.toMatch(
      /^ModelCallError: @rlm\/anthropic: could not reach the Messages API/,
    );
  }, 60_000);
});
