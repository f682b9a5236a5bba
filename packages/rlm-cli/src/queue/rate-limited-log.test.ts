import { expect, test } from 'vitest';
import { causeOf, RateLimitedLog } from './rate-limited-log.js';

test('one line per cause per interval; the lines held back are counted, and the count is printed when it ends', async () => {
  const lines: string[] = [];
  let countPrinted: () => void = () => {};
  const printed = new Promise<void>((resolve) => {
    countPrinted = resolve;
  });
  const log = new RateLimitedLog(
    (line) => {
      lines.push(line);
      if (line.includes('more like')) countPrinted();
    },
    { prefix: 'rlm: worker: ', intervalMs: 200 },
  );
  for (let index = 0; index < 50; index++) {
    log.report('oom', `rlm: worker: id ${index}: OOM command not allowed`);
  }
  log.report('other', 'rlm: worker: the queue is gone');
  expect(lines).toEqual([
    'rlm: worker: id 0: OOM command not allowed',
    'rlm: worker: the queue is gone',
  ]);
  await printed;
  expect(lines[2]).toBe(
    'rlm: worker: 49 more like "rlm: worker: id 49: OOM command not allowed" in the last 0 s',
  );
  // The interval has ended: the next line of the cause is printed at once.
  log.report('oom', 'rlm: worker: id 50: OOM command not allowed');
  expect(lines.at(-1)).toBe('rlm: worker: id 50: OOM command not allowed');
});

test('flush prints what is held back at once', () => {
  const lines: string[] = [];
  const log = new RateLimitedLog((line) => lines.push(line), {
    prefix: 'rlm: ',
    intervalMs: 3_600_000,
  });
  log.report('a', 'rlm: first');
  log.report('a', 'rlm: second');
  log.report('a', 'rlm: third');
  log.flush();
  expect(lines).toEqual(['rlm: first', 'rlm: 2 more like "rlm: third" in the last 3600 s']);
  log.flush();
  expect(lines).toHaveLength(2);
});

test('causeOf blanks keys, digests and numbers, so the same failure is one cause', () => {
  expect(causeOf('writing key "rlm::chunk:ab12cd34ef56:9f8e7d6c5b4a3210:0" failed: OOM')).toBe(
    causeOf('writing key "rlm::record:0123456789abcdef" failed: OOM'),
  );
  expect(causeOf('connect ECONNREFUSED 127.0.0.1:6379')).toBe('connect ECONNREFUSED #.#.#.#:#');
});
