import type { ArtifactCatalogEntry } from '../../artifact-store.js';
import { expect, test } from 'vitest';
import { renderArtifactCatalog } from './render-artifact-catalog.js';

function entry(name: string, overrides: Partial<ArtifactCatalogEntry> = {}): ArtifactCatalogEntry {
  return {
    name,
    type: 'data',
    description: `About ${name}`,
    purpose: `About ${name}`,
    timestamp: 0,
    valueKind: 'string',
    valueLength: 12_345,
    size: 12_347,
    ...overrides,
  };
}

test('no records give no section', () => {
  expect(renderArtifactCatalog([], 1000)).toBe('');
});

test('each record is one line: quoted reference, type, description, shape, size', () => {
  const text = renderArtifactCatalog(
    [
      entry('summary'),
      entry('rows', {
        type: 'table',
        description: 'Parsed\nrows',
        purpose: 'Input for the chart',
        valueKind: 'array',
        valueLength: 1204,
        size: 90_000,
      }),
      entry('odd "name"\n', { valueKind: 'number', valueLength: undefined, size: 2 }),
    ],
    10_000,
  );
  expect(text.split('\n')).toEqual([
    'Available artifacts (3); pass "@name" as a tool input to use its value:',
    '- "@odd \\"name\\"\\n" (data): About odd "name" [number, 2 B]',
    '- "@rows" (table): Parsed rows Purpose: Input for the chart [array of 1,204 items, 87.9 KiB]',
    '- "@summary" (data): About summary [string of 12,345 chars, 12.1 KiB]',
  ]);
});

test('never longer than maxChars; what does not fit is counted', () => {
  const entries = Array.from({ length: 200 }, (_, index) =>
    entry(`artifact-${index}`, { description: 'd'.repeat(500) }),
  );
  for (const maxChars of [120, 300, 1000, 4000]) {
    const text = renderArtifactCatalog(entries, maxChars);
    expect(text.length).toBeLessThanOrEqual(maxChars);
    expect(text).toMatch(/^Available artifacts \(200\)/);
    expect(text).toMatch(/\(\d+ older artifacts not shown\)$/);
  }
  const lines = renderArtifactCatalog(entries, 4000).split('\n');
  const shown = lines.length - 2;
  expect(lines.at(-1)).toBe(`(${200 - shown} older artifacts not shown)`);
  expect(lines[1]).toContain('"@artifact-199"');
  expect(lines[1]?.length).toBeLessThan(300);
  expect(renderArtifactCatalog(entries, 10)).toBe('');
});

test('newest first by timestamp, so older records (a session spilled earlier) give way first', () => {
  const text = renderArtifactCatalog(
    [entry('made_now', { timestamp: 2_000 }), entry('spilled_earlier', { timestamp: 1_000 })],
    10_000,
  );
  expect(text.split('\n').slice(1)).toEqual([
    expect.stringContaining('"@made_now"'),
    expect.stringContaining('"@spilled_earlier"'),
  ]);
});
