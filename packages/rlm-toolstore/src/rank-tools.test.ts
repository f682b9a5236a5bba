import { describe, expect, test } from 'vitest';
import { knownToolsOf } from './known-tools-of.js';
import { rankTools } from './rank-tools.js';
import { emptyRegistry, newToolRecord, type Registry, type ToolRecord } from './registry.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const day = 86_400_000;

function tool(role: string, changes: Partial<ToolRecord> = {}): ToolRecord {
  return {
    ...newToolRecord(
      { role, contract: { purpose: `does ${role}` }, fingerprint: 'sha256:x' },
      '2026-01-01T00:00:00.000Z',
    ),
    ...changes,
  };
}

function registryOf(tools: readonly ToolRecord[]): Registry {
  return {
    ...emptyRegistry(),
    tools: Object.fromEntries(tools.map((entry) => [entry.role, entry])),
  };
}

function daysAgo(days: number): string {
  return new Date(now.getTime() - days * day).toISOString();
}

describe('rankTools', () => {
  test('score = smoothed success rate x recency halving every 7 days', () => {
    const [ranked] = rankTools(
      registryOf([
        tool('a', { success_count: 8, intrinsic_failure_count: 0, last_used_at: daysAgo(7) }),
      ]),
      { now },
    );
    expect(ranked?.successRate).toBeCloseTo(0.9);
    expect(ranked?.recency).toBeCloseTo(0.5);
    expect(ranked?.score).toBeCloseTo(0.45);
  });

  test('recent and reliable first; extrinsic failures do not count against a tool', () => {
    const ranked = rankTools(
      registryOf([
        tool('old_good', { success_count: 50, last_used_at: daysAgo(60) }),
        tool('fresh_flaky', {
          success_count: 1,
          intrinsic_failure_count: 9,
          last_used_at: daysAgo(0),
        }),
        tool('fresh_good', { success_count: 20, last_used_at: daysAgo(1) }),
        tool('outage', {
          success_count: 20,
          extrinsic_failure_count: 30,
          last_used_at: daysAgo(1),
        }),
      ]),
      { now },
    ).map((entry) => entry.tool.role);
    expect(ranked).toEqual(['fresh_good', 'outage', 'fresh_flaky', 'old_good']);
  });

  test('a custom half-life changes the decay', () => {
    const registry = registryOf([tool('a', { last_used_at: daysAgo(2) })]);
    expect(rankTools(registry, { now, halfLifeDays: 2 })[0]?.recency).toBeCloseTo(0.5);
  });
});

describe('knownToolsOf', () => {
  test('ranked summaries: methods, purpose, calls and the share of judged calls that succeeded', () => {
    const registry = registryOf([
      tool('web_fetcher', {
        contract: { purpose: 'fetch <html>\n pages' },
        last_used_at: daysAgo(30),
      }),
      tool('csv_parser', {
        methods: ['parse', 'stringify'],
        usage_count: 14,
        success_count: 12,
        intrinsic_failure_count: 1,
        extrinsic_failure_count: 1,
        last_used_at: daysAgo(0),
      }),
      tool('no_purpose', { contract: { purpose: 42 } as never, last_used_at: daysAgo(60) }),
    ]);
    expect(knownToolsOf(registry, { now })).toEqual([
      {
        role: 'csv_parser',
        methods: ['parse', 'stringify'],
        purpose: 'does csv_parser',
        calls: 14,
        successRate: 12 / 13,
      },
      { role: 'web_fetcher', methods: [], purpose: 'fetch <html>\n pages', calls: 0 },
      { role: 'no_purpose', methods: [], purpose: '', calls: 0 },
    ]);
  });

  test('tools with names that are not tool names are left out', () => {
    const registry = registryOf([
      tool('good'),
      tool('bad\nrole'),
      tool('bad_method', { methods: ['ok', 'not ok'] }),
    ]);
    expect(knownToolsOf(registry, { now }).map((entry) => entry.role)).toEqual(['good']);
    expect(knownToolsOf(emptyRegistry(), { now })).toEqual([]);
  });
});
