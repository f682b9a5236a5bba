import { describe, expect, test } from 'vitest';
import { ArtifactQuota } from './artifact-quota.js';

describe('ArtifactQuota', () => {
  test('counts UTF-8 bytes of the JSON text and refuses past the byte quota', () => {
    const quota = new ArtifactQuota({ artifactBytes: 20, artifactCount: 10 });
    expect(quota.reserve('é'.repeat(4), 'store(name, value)')).toBe(10);
    expect(quota.reserve([1, 2], 'store(name, value)')).toBe(5);
    expect(() => quota.reserve('x'.repeat(10), 'store(name, value)')).toThrow(
      "store(name, value): storing 12 more bytes would pass the run's quota of 20 bytes (15 used; artifacts.quotas.artifactBytes; CLI --max-artifact-bytes)",
    );
    expect(quota.used).toEqual({ bytes: 15, count: 2 });
  });

  test('refuses past the count quota; a cancelled write gives its room back', () => {
    const quota = new ArtifactQuota({ artifactBytes: 1_000, artifactCount: 1 });
    const bytes = quota.reserve('a', 'store(name, value)');
    expect(() => quota.reserve('b', 'store(name, value)')).toThrow(
      /stored 1 artifacts, the most allowed \(artifacts.quotas.artifactCount is 1; CLI --max-artifacts\)/,
    );
    quota.cancel(bytes);
    expect(quota.reserve('b', 'store(name, value)')).toBe(3);
  });

  test('values without JSON text are refused before anything is stringified', () => {
    const quota = new ArtifactQuota({ artifactBytes: 1_000, artifactCount: 10 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => quota.reserve(cyclic, 'store(name, value)')).toThrow(
      'store(name, value) needs plain JSON data; got an object: $.self refers back to itself (a cycle)',
    );
    let shared: unknown[] = ['x'.repeat(1024)];
    for (let level = 0; level < 60; level += 1) shared = [shared, shared];
    expect(() => quota.reserve(shared, 'store(name, value)')).toThrow(
      /has more than|over \d+ characters/,
    );
    expect(quota.used).toEqual({ bytes: 0, count: 0 });
  });
});
