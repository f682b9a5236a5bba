import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScorerModuleError } from '../errors/scorer-module-error.js';
import { loadScorerModule } from './load-scorer-module.js';

/** The built worker: tests run after `pnpm build`. */
const workerUrl = new URL('../../dist/scorer-worker.js', import.meta.url);

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-eval-scorer-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function module(name: string, source: string): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, source);
  return file;
}

const input = (answer: unknown, expected: unknown = 'yes') => ({
  id: 1,
  query: 'q',
  answer,
  expected,
});

describe('loadScorerModule', () => {
  test('runs the default export; numbers, booleans and {score, note} are scores', async () => {
    const file = await module(
      'plain.mjs',
      `export default ({ answer, expected }) =>
        answer === 'half' ? { score: 0.5, note: 'half right' } : answer === expected;`,
    );
    await using scorer = await loadScorerModule(file, { workerUrl });
    expect(await scorer.score(input('yes'))).toEqual({ score: 1 });
    expect(await scorer.score(input('no'))).toEqual({ score: 0 });
    expect(await scorer.score(input('half'))).toEqual({ score: 0.5, note: 'half right' });
    expect(scorer.name).toBe(file);
  });

  test('a throw, an async rejection and an out-of-range value mark that item only', async () => {
    const file = await module(
      'faulty.mjs',
      `export async function score({ answer }) {
        if (answer === 'throw') throw new TypeError('no such field');
        if (answer === 'reject') return Promise.reject(new Error('later'));
        if (answer === 'big') return 7;
        if (answer === 'fn') return () => 1;
        return 1;
      }`,
    );
    await using scorer = await loadScorerModule(file, { workerUrl });
    expect(await scorer.score(input('throw'))).toEqual({
      score: null,
      failure: { kind: 'threw', message: 'the scorer failed: it threw TypeError: no such field' },
    });
    expect((await scorer.score(input('reject'))).failure?.message).toContain('Error: later');
    expect(await scorer.score(input('big'))).toEqual({
      score: null,
      failure: {
        kind: 'invalid',
        message:
          'the scorer returned 7; return a number from 0 to 1, a boolean, or { score, note }',
      },
    });
    expect((await scorer.score(input('fn'))).failure?.message).toContain('not plain data');
    expect(await scorer.score(input('fine'))).toEqual({ score: 1 });
  });

  test('a scorer that loops forever is stopped at the timeout; the next item gets a fresh worker', async () => {
    const file = await module(
      'hangs.mjs',
      `export default ({ answer }) => { if (answer === 'hang') for (;;) {} return 1; };`,
    );
    await using scorer = await loadScorerModule(file, { workerUrl, timeoutMs: 2_000 });
    const [hung, next] = await Promise.all([
      scorer.score(input('hang')),
      scorer.score(input('fine')),
    ]);
    expect(hung).toEqual({
      score: null,
      failure: {
        kind: 'timed-out',
        message: 'the scorer took longer than 2000 ms; it was stopped',
      },
    });
    expect(next).toEqual({ score: 1 });
  });

  test('a module that hangs while loading is refused after the load timeout', async () => {
    const file = await module('hangs-at-import.mjs', 'for (;;) {}\nexport default () => 1;');
    const error = await loadScorerModule(file, { workerUrl, loadTimeoutMs: 1_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(ScorerModuleError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('did not load within 1000 ms');
  });

  test('a module that exports no function, does not parse, or is missing is a typed error', async () => {
    const none = await module('none.mjs', 'export const answer = 42;');
    const broken = await module('broken.mjs', 'export default (');
    for (const [file, message] of [
      [none, 'it exports no scorer: export default a function'],
      [broken, 'it does not load: SyntaxError'],
      [path.join(directory, 'missing.mjs'), 'it does not load: Error: Cannot find module'],
    ] as const) {
      const error = await loadScorerModule(file, { workerUrl }).catch((caught: unknown) => caught);
      expect(ScorerModuleError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(
        `@rlm/eval: the scorer module ${file}: ${message}`,
      );
    }
  });
});
