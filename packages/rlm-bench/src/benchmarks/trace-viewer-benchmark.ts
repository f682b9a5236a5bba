import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTraceRecorder, renderTraceHtml } from '@rlm/trace';
import { syntheticRunEvents } from '@rlm/trace/testing';
import { chromium } from 'playwright-core';
import type { Benchmark } from '../benchmark.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const steps = 2000;
const chromiumPath = '/usr/bin/chromium';

/**
 * The trace of a 2,000-step run (a `sub_rlm` child every tenth step): recording it from its
 * events, and opening its HTML in headless Chromium (navigation until the page says it is
 * ready), each in a fresh page.
 */
export const traceViewerBenchmark: Benchmark = {
  name: 'trace',
  description: 'recording and opening the HTML trace of a 2,000-step run',
  async run(options) {
    await access(chromiumPath).catch(() => {
      throw new Error(
        `the trace benchmark needs Chromium at ${chromiumPath}: apt-get install -y chromium`,
      );
    });
    const events = syntheticRunEvents(steps);
    const recordMs: number[] = [];
    let html = '';
    for (let run = 0; run < options.runs; run++) {
      const started = performance.now();
      const recorder = createTraceRecorder();
      for (const event of events) recorder.record(event);
      const trace = recorder.finish();
      recordMs.push(performance.now() - started);
      html = renderTraceHtml(trace);
    }
    return withTemporaryDirectory(async (directory) => {
      const file = path.join(directory, 'trace.html');
      await writeFile(file, html);
      const profile = await mkdtemp(path.join(tmpdir(), 'rlm-bench-chromium-'));
      const browser = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const openMs: number[] = [];
        const scriptMs: number[] = [];
        for (let run = 0; run <= options.runs; run++) {
          const page = await browser.newPage();
          const started = performance.now();
          await page.goto(pathToFileURL(file).href);
          await page.waitForSelector('body[data-ready="true"]');
          const elapsed = performance.now() - started;
          const pageScript = Number(await page.locator('body').getAttribute('data-render-ms'));
          await page.close();
          // The first opening warms the browser up and is not counted.
          if (run === 0) continue;
          openMs.push(elapsed);
          scriptMs.push(pageScript);
          options.log(`  opened in ${elapsed.toFixed(0)} ms`);
        }
        const open = median(openMs);
        return [
          {
            benchmark: 'trace',
            figure: `record a ${steps}-step trace (${events.length} events through createTraceRecorder)`,
            result: { value: median(recordMs), unit: 'ms' },
            runs: recordMs.length,
          },
          {
            benchmark: 'trace',
            figure: `open the HTML trace of ${steps} steps in headless Chromium`,
            result: { value: open, unit: 'ms' },
            target: { text: '< 2000 ms', met: open < 2000 },
            runs: openMs.length,
            note: `${(Buffer.byteLength(html) / 1024 / 1024).toFixed(1)} MiB file; page script ${median(scriptMs).toFixed(0)} ms`,
          },
        ];
      } finally {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      }
    });
  },
};
