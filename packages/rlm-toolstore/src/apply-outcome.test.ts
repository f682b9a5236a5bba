import { describe, expect, test } from 'vitest';
import { applyOutcome, applyToolOutcome, type ClassifiedOutcome } from './apply-outcome.js';
import type { FailureClass } from './classify-failure.js';
import { nextGeneration } from './next-generation.js';
import { defaultToolStorePolicy } from './tool-store-settings.js';

const policy = defaultToolStorePolicy;
const base = nextGeneration(
  undefined,
  { role: 'feed', method: 'fetch' },
  {
    code: 'x',
    contract: {},
    model: 'm',
    trigger: 'forge',
    runtime: { runtimeVersion: '1.0.0', promptVersion: 'p' },
  },
  'T0',
);

function failure(failureClass: FailureClass, generationId = 'gen-1'): ClassifiedOutcome {
  return {
    ok: false,
    failureClass,
    failureReason: `${failureClass} failure`,
    programSource: 'persisted',
    generationId,
  };
}

const success: ClassifiedOutcome = {
  ok: true,
  failureClass: null,
  failureReason: null,
  programSource: 'persisted',
  generationId: 'gen-1',
};

describe('applyOutcome', () => {
  test('a success counts and pulls the failure rate down', () => {
    const after = applyOutcome({ ...base, recent_failure_rate: 0.4 }, success, 'T1', policy)!;
    expect(after.success_count).toBe(1);
    expect(after.recent_failure_rate).toBeCloseTo(0.3);
    expect(after.last_used_at).toBe('T1');
  });

  test('intrinsic failures raise the failure rate: three in a row degrade', () => {
    let artifact = base;
    const rates: number[] = [];
    for (let index = 0; index < 3; index++) {
      artifact = applyOutcome(artifact, failure('intrinsic'), `T${index}`, policy)!;
      rates.push(artifact.recent_failure_rate);
    }
    expect(rates).toEqual([0.25, 0.4375, 0.578125]);
    expect(artifact).toMatchObject({
      failure_count: 3,
      intrinsic_failure_count: 3,
      last_failure_class: 'intrinsic',
      last_failure_reason: 'intrinsic failure',
      last_failure_at: 'T2',
    });
  });

  test('extrinsic failures are counted but never move health', () => {
    let artifact = base;
    for (let index = 0; index < 50; index++) {
      artifact = applyOutcome(artifact, failure('extrinsic'), 'T1', policy)!;
    }
    expect(artifact.extrinsic_failure_count).toBe(50);
    expect(artifact.failure_count).toBe(50);
    expect(artifact.recent_failure_rate).toBe(0);
    expect(artifact.input_drift_at).toBeNull();
  });

  test('an adaptive failure flags input drift until a success', () => {
    const drifted = applyOutcome(base, failure('adaptive'), 'T1', policy)!;
    expect(drifted.input_drift_at).toBe('T1');
    expect(drifted.adaptive_failure_count).toBe(1);
    expect(applyOutcome(drifted, failure('extrinsic'), 'T2', policy)!.input_drift_at).toBe('T1');
    expect(applyOutcome(drifted, success, 'T3', policy)!.input_drift_at).toBeNull();
  });

  test('outcomes of other code leave the method alone', () => {
    expect(applyOutcome(base, failure('intrinsic', 'gen-0'), 'T1', policy)).toBeUndefined();
    expect(
      applyOutcome(
        base,
        { ...failure('intrinsic'), programSource: 'generated', generationId: undefined },
        'T1',
        policy,
      ),
    ).toBeUndefined();
    expect(
      applyOutcome(
        base,
        { ...success, programSource: 'repaired', generationId: undefined },
        'T1',
        policy,
      ),
    ).toBeUndefined();
  });

  test('a failed repair that was never persisted spends one repair', () => {
    const after = applyOutcome(
      base,
      { ...failure('intrinsic'), programSource: 'repaired', generationId: undefined },
      'T1',
      policy,
    )!;
    expect(after.repair_count_since_regeneration).toBe(1);
    expect(after.failure_count).toBe(0);
  });
});

describe('applyToolOutcome', () => {
  test('creates the entry and counts every call', () => {
    const identity = { role: 'feed', contract: { purpose: 'p' }, fingerprint: 'sha256:x' };
    const first = applyToolOutcome(undefined, identity, success, 'T1');
    const second = applyToolOutcome(first, identity, failure('extrinsic', 'other'), 'T2');
    expect(second).toMatchObject({
      role: 'feed',
      usage_count: 2,
      success_count: 1,
      failure_count: 1,
      extrinsic_failure_count: 1,
      created_at: 'T1',
      last_used_at: 'T2',
    });
  });
});
