import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRLM, type GenerateRequest } from '@rlm/core';
import { createScriptedModel, timeScaled } from '@rlm/core/testing';
import { createTraceRecorder, renderTraceHtml, type TraceDocument } from '@rlm/trace';
import { syntheticRunEvents } from '@rlm/trace/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const hostile =
  '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
const screenshotPath = path.resolve('test-results', 'trace-viewer.png');

/** The query a request is about: the first user message names it. */
function queryOf(request: GenerateRequest): string {
  const first = request.messages[0]!;
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
}

/**
 * A real 3-level run through the loop and the SES sandbox: the root calls `llm_query` and
 * `sub_rlm`; the child calls `sub_rlm` again; the grandchild computes and prints.
 */
async function recordThreeLevelRun(): Promise<TraceDocument> {
  const answered = new Set<string>();
  const reply = (request: GenerateRequest) => {
    if (request.system === 'Answer the request accurately and concisely.') {
      return 'lions, tigers and bears';
    }
    const query = queryOf(request);
    const level = query.includes('Count the whiskers')
      ? 'grandchild'
      : query.includes('Describe the cats')
        ? 'child'
        : 'root';
    if (answered.has(level)) {
      return level === 'root'
        ? 'FINAL_VAR(report)'
        : level === 'child'
          ? 'FINAL_VAR(detail)'
          : 'FINAL(24 whiskers)';
    }
    answered.add(level);
    if (level === 'root') {
      return `Let me split the work.\n${repl(
        [
          'const animals = await llm_query("List three animals");',
          'const report = await sub_rlm("Describe the cats", "cats live in the big house");',
          `print(${JSON.stringify(hostile)});`,
          'print("root got: " + report + " / " + animals);',
        ].join('\n'),
      )}`;
    }
    if (level === 'child') {
      return repl(
        [
          'const detail = await sub_rlm("Count the whiskers", "whisker data");',
          'print("WHISKER-MARKER " + detail);',
        ].join('\n'),
      );
    }
    return repl('// count them\nconst whiskers = 6 * 4;\nprint("XYZZY-" + whiskers);');
  };
  const llm = createScriptedModel([], { fallback: reply });
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, limits: { maxDepth: 3 } });
  const recorder = createTraceRecorder();
  for await (const event of rlm.queryStream('Survey the zoo', 'the zoo has cats')) {
    recorder.record(event);
  }
  return recorder.finish();
}

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-trace-viewer-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the HTML trace in a real browser', () => {
  test('shows the nested calls of a 3-level run, their code and output, and finds text', async () => {
    const trace = await recordThreeLevelRun();
    expect(trace.status).toBe('answered');
    expect(trace.calls.map((call) => call.depth)).toEqual([0, 1, 2]);
    const file = path.join(directory, 'three-levels.html');
    await writeFile(file, renderTraceHtml(trace));

    await using browser = await launchChromium();
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');

    // The root is open: its step and the header show; the nested calls are collapsed.
    await expect(page.locator('header .query').textContent()).resolves.toBe('Survey the zoo');
    const rootStep = page
      .locator('details.call[data-depth="0"] > .body > .steps > details.step')
      .first();
    await rootStep.locator('> summary').click();
    const rootSub = rootStep.locator('> .body > details.host', { hasText: 'sub_rlm' });
    await expect(rootSub.locator('> summary').textContent()).resolves.toContain(
      'Describe the cats',
    );
    const llmQuery = rootStep.locator('> .body > details.host', { hasText: 'llm_query' });
    await llmQuery.locator('> summary').click();
    await expect(llmQuery.locator('pre[data-field="result"]').textContent()).resolves.toBe(
      'lions, tigers and bears',
    );

    // Expanding the chain reaches depth 2.
    await rootSub.locator('> summary').click();
    const child = rootSub.locator('> .body > details.call[data-depth="1"]');
    await child.locator('> summary').click();
    const childStep = child.locator('> .body > .steps > details.step').first();
    await childStep.locator('> summary').click();
    const childSub = childStep.locator('> .body > details.host', { hasText: 'sub_rlm' });
    await childSub.locator('> summary').click();
    const grandchild = childSub.locator('> .body > details.call[data-depth="2"]');
    await expect(grandchild.locator('> summary').textContent()).resolves.toContain(
      'Count the whiskers',
    );
    await grandchild.locator('> summary').click();
    const grandchildStep = grandchild.locator('> .body > .steps > details.step').first();
    await grandchildStep.locator('> summary').click();

    // Expanding a node shows its code (highlighted) and its output.
    const code = grandchildStep.locator('pre.code');
    await code.waitFor({ state: 'visible' });
    await expect(code.textContent()).resolves.toContain('const whiskers = 6 * 4;');
    await expect(code.locator('.tok-keyword').first().textContent()).resolves.toBe('const');
    await expect(code.locator('.tok-comment').textContent()).resolves.toBe('// count them');
    await expect(grandchildStep.locator('pre.output').textContent()).resolves.toContain('XYZZY-24');

    // Hostile output is shown as text and runs nothing.
    const rootOutput = rootStep.locator('> .body > .block pre.output');
    await expect(rootOutput.textContent()).resolves.toContain(hostile);
    await expect(page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).resolves.toBe(
      undefined,
    );
    await expect(page.locator('img').count()).resolves.toBe(0);

    // Collapse everything, then search for a string that only an output holds.
    await page.locator('button', { hasText: 'collapse all' }).click();
    // "marker 24" is in the child's output only (its code and text hold "WHISKER-MARKER ").
    await page.locator('#search').fill('marker 24');
    await page.locator('#search').press('Enter');
    await expect(page.locator('#search-status').textContent()).resolves.toBe('1 match');
    const hit = page.locator('mark.hit');
    await expect(hit.count()).resolves.toBe(1);
    await expect(hit.textContent()).resolves.toBe('MARKER 24');
    await hit.waitFor({ state: 'visible' });
    await expect(
      hit.evaluate((mark) => mark.closest('details.call')?.getAttribute('data-depth')),
    ).resolves.toBe('1');

    await mkdir(path.dirname(screenshotPath), { recursive: true });
    await page.screenshot({ path: screenshotPath });
    // Nothing but the file itself was requested.
    expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
  }, 60_000);

  test("a trace of 2,000 steps opens in under 2 s (bound here: 10 s, scaled by the machine's load)", async () => {
    const recorder = createTraceRecorder();
    for (const event of syntheticRunEvents(2000)) recorder.record(event);
    const file = path.join(directory, 'long.html');
    await writeFile(file, renderTraceHtml(recorder.finish()));

    await using browser = await launchChromium();
    const page = await browser.newPage();
    const { wallMs: openMs, scaledMs } = await timeScaled(async () => {
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="true"]');
    });
    const renderMs = Number(await page.locator('body').getAttribute('data-render-ms'));
    console.log(
      `2,000-step trace: opened in ${Math.round(openMs)} ms (page script ${Math.round(renderMs)} ms)`,
    );
    expect(scaledMs).toBeLessThan(10_000);
    // Steps render a page at a time; search reaches the last ones.
    const steps = page.locator('details.call[data-depth="0"] > .body > .steps > details.step');
    await expect(steps.count()).resolves.toBe(100);
    await expect(page.locator('button.more').first().textContent()).resolves.toBe(
      'show steps 101–200 (1900 more)',
    );
    await page.locator('#search').fill('Slice 1999 reports');
    await page.locator('#search').press('Enter');
    await expect(page.locator('#search-status').textContent()).resolves.toBe('2 matches');
    const hit = page.locator('pre.output mark.hit').first();
    await hit.waitFor({ state: 'visible' });
    await expect(
      hit.evaluate(
        (mark) => mark.closest('details.step')?.querySelector('.step-badge')?.textContent,
      ),
    ).resolves.toBe('step 1999');
  }, 60_000);
});
