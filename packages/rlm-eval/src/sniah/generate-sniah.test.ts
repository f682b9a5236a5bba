import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EvalSettingsError } from '../errors/eval-settings-error.js';
import { parseEvalDataset } from '../parse-eval-dataset.js';
import { formatTokenLength, generateSniah, parseTokenLengths } from './generate-sniah.js';
import { writeSniahDataset } from './write-sniah-dataset.js';

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-eval-sniah-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function digestOf(folder: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(folder, { recursive: true })).sort()) {
    const file = path.join(folder, name);
    if (name.endsWith('.txt') || name.endsWith('.jsonl')) {
      hash.update(name).update(await readFile(file));
    }
  }
  return hash.digest('hex');
}

describe('the S-NIAH generator', () => {
  test('each context has its length and exactly one needle, whose number is the answer', () => {
    const items = generateSniah({ lengths: [2_000, 8_000], n: 5, seed: 7 });
    expect(items.map((item) => item.id)).toEqual([
      '2k-001',
      '2k-002',
      '2k-003',
      '2k-004',
      '2k-005',
      '8k-001',
      '8k-002',
      '8k-003',
      '8k-004',
      '8k-005',
    ]);
    for (const item of items) {
      const text = [...item.context()].join('');
      expect(text.length).toBe(item.lengthTokens * 4);
      const needles = [
        ...text.matchAll(/The special magic number for ([a-z]+-[a-z]+) is: (\d{7})\./g),
      ];
      expect(needles).toHaveLength(1);
      expect(needles[0]![2]).toBe(item.expected);
      expect(item.query).toContain(`for ${needles[0]![1]} mentioned`);
      // The needle sits near its depth.
      expect(Math.abs(needles[0]!.index! / text.length - item.depth)).toBeLessThan(0.05);
    }
    expect(new Set(items.map((item) => item.expected)).size).toBeGreaterThan(5);
  });

  test('the same seed writes the same bytes; another seed writes others', async () => {
    const settings = { lengths: parseTokenLengths('2k,4k'), n: 3, seed: 42 };
    const first = await writeSniahDataset(path.join(directory, 'a'), settings);
    await writeSniahDataset(path.join(directory, 'b'), settings);
    await writeSniahDataset(path.join(directory, 'c'), { ...settings, seed: 43 });
    expect(first.items).toBe(6);
    expect(first.contextBytes).toBe(3 * 8_000 + 3 * 16_000);
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((name) => digestOf(path.join(directory, name))),
    );
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    // The dataset is one eval can read as it is.
    const text = await readFile(first.datasetFile, 'utf8');
    const dataset = parseEvalDataset(text, path.dirname(first.datasetFile));
    expect(dataset.problems).toEqual([]);
    expect(dataset.items).toHaveLength(6);
    expect(dataset.items[0]!.context).toEqual({
      kind: 'file',
      path: path.join(directory, 'a', 'contexts', '2k-001.txt'),
    });
  });

  test('a long context comes in pieces, never whole', () => {
    const [item] = generateSniah({ lengths: [1_000_000], n: 1 });
    let pieces = 0;
    let chars = 0;
    for (const piece of item!.context()) {
      pieces++;
      chars += piece.length;
      expect(piece.length).toBeLessThan(70_000);
    }
    expect(chars).toBe(4_000_000);
    expect(pieces).toBeGreaterThan(50);
  });

  test('lengths read k and m; bad lengths and counts are typed errors', () => {
    expect(parseTokenLengths('8k, 128k,1m,10m')).toEqual([8_000, 128_000, 1_000_000, 10_000_000]);
    expect(parseTokenLengths('1.5k')).toEqual([1_500]);
    expect(formatTokenLength(128_000)).toBe('128k');
    expect(formatTokenLength(10_000_000)).toBe('10m');
    expect(() => parseTokenLengths('8k,lots')).toThrow(
      '@rlm/eval: lengths are token counts of at least 1k such as 8k,128k,1m (got "lots")',
    );
    expect(() => parseTokenLengths('500')).toThrow(EvalSettingsError);
    expect(() => generateSniah({ lengths: [8_000], n: 0 })).toThrow(/n must be a positive/);
  });
});
