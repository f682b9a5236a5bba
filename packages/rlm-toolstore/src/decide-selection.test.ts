import { describe, expect, test } from 'vitest';
import { assessHealth } from './assess-health.js';
import { contractFingerprint } from './contract-fingerprint.js';
import { decideSelection, type SelectionContext } from './decide-selection.js';
import type { MethodArtifact } from './method-artifact.js';
import { nextGeneration } from './next-generation.js';
import { defaultToolStorePolicy } from './tool-store-settings.js';

const contract = { purpose: 'fetch a feed' };
const artifact = nextGeneration(
  undefined,
  { role: 'feed', method: 'fetch' },
  {
    code: 'x',
    contract,
    model: 'm',
    trigger: 'forge',
    runtime: { runtimeVersion: '1.2.0', promptVersion: 'p' },
  },
  'T0',
);
const context: SelectionContext = {
  contractFingerprint: contractFingerprint(contract),
  runtimeVersion: '1.3.0',
  policy: defaultToolStorePolicy,
  repair: true,
};

function select(changes: Partial<MethodArtifact>, overrides: Partial<SelectionContext> = {}) {
  return decideSelection(
    { status: 'found', artifact: { ...artifact, ...changes } },
    { ...context, ...overrides },
  );
}

describe('decideSelection', () => {
  test('healthy -> run, whatever the prompt version', () => {
    expect(select({ prompt_version: 'older prompt' })).toEqual({
      action: 'run',
      artifact: { ...artifact, prompt_version: 'older prompt' },
    });
  });

  test('missing, corrupt, checksum mismatch, other schema -> generate', () => {
    expect(decideSelection({ status: 'missing' }, context)).toEqual({
      action: 'generate',
      reason: 'missing',
    });
    expect(
      decideSelection(
        { status: 'quarantined', problem: 'corrupt', detail: 'd', quarantinedTo: 'q' },
        context,
      ),
    ).toEqual({ action: 'generate', reason: 'corrupt' });
    expect(
      decideSelection(
        { status: 'quarantined', problem: 'checksum_mismatch', detail: 'd', quarantinedTo: 'q' },
        context,
      ),
    ).toEqual({ action: 'generate', reason: 'checksum_mismatch' });
    expect(
      decideSelection({ status: 'schema_version_mismatch', schemaVersion: 2 }, context),
    ).toEqual({ action: 'generate', reason: 'schema_version_mismatch' });
  });

  test('incompatible runtime -> generate, even with repairs left', () => {
    expect(select({}, { runtimeVersion: '2.0.0' })).toEqual({
      action: 'generate',
      reason: 'runtime_incompatible',
    });
  });

  test('stale, drifting or degraded -> repair while the budget lasts', () => {
    expect(select({ contract_fingerprint: 'sha256:old' })).toMatchObject({
      action: 'repair',
      reason: 'stale_contract',
    });
    expect(select({ input_drift_at: 'T1' })).toMatchObject({
      action: 'repair',
      reason: 'input_drift',
    });
    expect(select({ recent_failure_rate: 0.5 })).toMatchObject({
      action: 'repair',
      reason: 'degraded',
    });
    expect(select({ recent_failure_rate: 0.49 })).toMatchObject({ action: 'run' });
    expect(select({ recent_failure_rate: 0.9, repair_count_since_regeneration: 2 })).toMatchObject({
      action: 'repair',
    });
  });

  test('budget spent -> generate; repair switched off -> generate', () => {
    expect(select({ recent_failure_rate: 0.9, repair_count_since_regeneration: 3 })).toEqual({
      action: 'generate',
      reason: 'repair_budget_exhausted',
    });
    expect(select({ contract_fingerprint: 'sha256:old' }, { repair: false })).toEqual({
      action: 'generate',
      reason: 'repair_disabled',
    });
  });
});

describe('assessHealth', () => {
  test('reports the repairs left and skips checks it has no reference for', () => {
    expect(
      assessHealth(
        { ...artifact, contract_fingerprint: 'sha256:old', repair_count_since_regeneration: 1 },
        { policy: defaultToolStorePolicy },
      ),
    ).toEqual({ status: 'healthy', repairsLeft: 2 });
    expect(
      assessHealth(
        { ...artifact, repair_count_since_regeneration: 7 },
        { policy: defaultToolStorePolicy },
      ).repairsLeft,
    ).toBe(0);
  });
});
