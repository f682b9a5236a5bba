import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type FakeMessagesRequest,
  fakeText,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { readEvalResults, summarizeEval } from '@rlm/eval';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './launch-chromium.js';

/**
 * `rlm eval --report` end to end: the built bin generates the S-NIAH dataset, runs it with two
 * RLM variants (real loop, real SES sandbox, the Anthropic SDK against the fake Messages API)
 * and the direct baseline, and writes the report; headless Chromium opens it.
 */

const rlmBin = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@rlm/cli/package.json')),
  'dist/bin/rlm.js',
);
const screenshotPath = path.resolve('test-results', 'eval-report.png');

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-eval-report-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function runRlm(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [rlmBin, ...args], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/**
 * The RLM finds the needle with code over `context`; the `weak` variant's model (Haiku) gives
 * up on contexts over 20,000 characters. The direct baseline reads the number from its prompt.
 */
function reply(request: FakeMessagesRequest) {
  const system =
    typeof request.system === 'string' ? request.system : JSON.stringify(request.system);
  const text = JSON.stringify(request.messages);
  if (system?.includes('Answer the question from the context')) {
    return fakeText(/special magic number for [a-z]+-[a-z]+ is: (\d{7})/.exec(text)?.[1] ?? '?');
  }
  if (request.messages.length === 1) {
    const limit = request.model === 'claude-haiku-4-5' ? 'context.length > 20000' : 'false';
    return fakeText(
      repl(
        `const match = /special magic number for [a-z]+-[a-z]+ is: (\\d{7})/.exec(context);\nconst found = ${limit} || !match ? 'not found' : match[1];\nprint(found);`,
      ),
    );
  }
  return fakeText('FINAL_VAR(found)');
}

describe('the eval report in a real browser', () => {
  test('charts render, the numbers are the JSONL’s, and a disagreement opens its trace', async () => {
    await using server = await startFakeMessagesServer({ handler: reply });
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: server.url };
    const generated = await runRlm(
      ['eval', '--generate', 'sniah', '--lengths', '2k,8k', '--n', '3', '--seed', '5', '-o', 'set'],
      env,
    );
    expect(generated.code).toBe(0);
    expect(generated.stderr).toContain('rlm: wrote 6 items');
    const evaluated = await runRlm(
      [
        'eval',
        'set/data.jsonl',
        '--scorer',
        'contains',
        '--model',
        'anthropic:claude-sonnet-4-5',
        '--variant',
        'sonnet',
        '--variant',
        'weak=--model anthropic:claude-haiku-4-5',
        '--baseline',
        'direct',
        '--baseline-window',
        '4k',
        '-o',
        'results.jsonl',
        '--report',
        'out/report.html',
        '--quiet',
      ],
      env,
    );
    expect(evaluated.stderr).toMatch(/rlm: report written to out\/report\.html with 6 traces/);
    expect(evaluated.code).toBe(0);
    const results = readEvalResults(
      await readFile(path.join(directory, 'results.jsonl'), 'utf8'),
    ).results;
    expect(results).toHaveLength(18);
    const summary = summarizeEval(results);
    const means = Object.fromEntries(
      summary.variants.map((variant) => [variant.variant, variant.meanScore]),
    );
    // The RLM finds every needle; the weak variant and the baseline only in the 2k contexts.
    expect(means).toEqual({ sonnet: 1, weak: 0.5, direct: 0.5 });

    await using browser = await launchChromium();
    const page = await browser.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path.join(directory, 'out', 'report.html')).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(errors).toEqual([]);

    // Score vs cost: a dot per variant (each has a price), titled with its numbers.
    const costDots = page.locator('#chart-score-cost svg circle');
    await expect(costDots.count()).resolves.toBe(3);
    const titles = await page.locator('#chart-score-cost svg circle title').allTextContents();
    for (const variant of summary.variants) {
      expect(titles).toContain(
        `${variant.variant}: score ${variant.meanScore!.toFixed(3)}, $${variant.costPerItemUsd!.toPrecision(4)} per item`,
      );
    }
    // Score by context length: a dot per variant and length (8,000 and 32,000 characters).
    const lengthTitles = await page
      .locator('#chart-score-length svg circle title')
      .allTextContents();
    expect(lengthTitles.sort()).toEqual(
      [
        'direct: 32,000 characters, score 0.000 over 3 items',
        'direct: 8,000 characters, score 1.000 over 3 items',
        'sonnet: 32,000 characters, score 1.000 over 3 items',
        'sonnet: 8,000 characters, score 1.000 over 3 items',
        'weak: 32,000 characters, score 0.000 over 3 items',
        'weak: 8,000 characters, score 1.000 over 3 items',
      ].sort(),
    );
    await expect(page.locator('#chart-score-length svg path').count()).resolves.toBeGreaterThan(3);
    // Time: one tick per run that was sent (the baseline's 3 that did not fit were not).
    await expect(page.locator('#chart-time svg g.run-ticks line').count()).resolves.toBe(15);

    // The summary table holds the JSONL's numbers.
    for (const variant of summary.variants) {
      const row = page.locator(`table.summary tr[data-variant="${variant.variant}"]`);
      await expect(row.locator('[data-field="mean"]').getAttribute('data-value')).resolves.toBe(
        String(variant.meanScore),
      );
      await expect(row.locator('[data-field="interval"]').getAttribute('data-low')).resolves.toBe(
        String(variant.interval!.low),
      );
      await expect(
        row.locator('[data-field="cost-per-item"]').getAttribute('data-value'),
      ).resolves.toBe(String(variant.costPerItemUsd));
      await expect(row.locator('[data-field="p95"]').getAttribute('data-value')).resolves.toBe(
        String(variant.p95DurationMs),
      );
      await expect(row.locator('[data-field="did-not-fit"]').textContent()).resolves.toBe(
        String(variant.didNotFit),
      );
    }

    // The 8k items are where the variants disagree; each RLM score links to its trace.
    const rows = page.locator('table.disagreements tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    const first = rows.first();
    const id = JSON.parse((await first.getAttribute('data-id'))!) as string;
    expect(id).toMatch(/^8k-/);
    const item = results.find((result) => result.id === id && result.variant === 'sonnet')!;
    const link = first.locator('td[data-variant="sonnet"] a');
    await expect(link.getAttribute('href')).resolves.toBe(`report-traces/${item.runId}.html`);
    await mkdir(path.dirname(screenshotPath), { recursive: true });
    await page.screenshot({ path: screenshotPath, fullPage: true });
    await link.click();
    await page.waitForURL(`**/report-traces/${item.runId}.html`);
    await page.waitForSelector('body[data-ready="true"]');
    await expect(page.locator('header .query').textContent()).resolves.toBe(item.query);
    // Nothing but files was requested.
    expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
  }, 120_000);
});
