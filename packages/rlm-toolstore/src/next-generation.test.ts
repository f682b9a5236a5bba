import { describe, expect, test } from 'vitest';
import { codeChecksum } from './code-checksum.js';
import { contractFingerprint } from './contract-fingerprint.js';
import { type NewGeneration, nextGeneration } from './next-generation.js';

const runtime = { runtimeVersion: '0.1.0', promptVersion: 'p1' };
const identity = { role: 'csv_parser', method: 'parse' };

function generation(code: string, trigger: NewGeneration['trigger']): NewGeneration {
  return { code, contract: { purpose: 'parse CSV' }, model: 'model-a', trigger, runtime };
}

describe('nextGeneration', () => {
  test('the first generation is gen-1 with no parent and clean health', () => {
    const artifact = nextGeneration(undefined, identity, generation('A', 'forge'), 'T1');
    expect(artifact).toMatchObject({
      schema_version: 1,
      role: 'csv_parser',
      method_name: 'parse',
      generation_id: 'gen-1',
      code: 'A',
      code_checksum: codeChecksum('A'),
      contract_fingerprint: contractFingerprint({ purpose: 'parse CSV' }),
      prompt_version: 'p1',
      runtime_version: '0.1.0',
      model: 'model-a',
      success_count: 0,
      recent_failure_rate: 0,
      repair_count_since_regeneration: 0,
      created_at: 'T1',
      history: [{ id: 'gen-1', parent_id: null, trigger: 'forge', created_at: 'T1' }],
    });
  });

  test('keeps the last three generations, newest first, each naming its parent', () => {
    let artifact = nextGeneration(undefined, identity, generation('A', 'forge'), 'T1');
    artifact = nextGeneration(artifact, identity, generation('B', 'repair:degraded'), 'T2');
    artifact = nextGeneration(artifact, identity, generation('C', 'repair:input_drift'), 'T3');
    artifact = nextGeneration(
      artifact,
      identity,
      generation('D', 'regenerate:repair_budget_exhausted'),
      'T4',
    );
    expect(artifact.generation_id).toBe('gen-4');
    expect(artifact.created_at).toBe('T1');
    expect(artifact.history.map((entry) => [entry.id, entry.parent_id, entry.trigger])).toEqual([
      ['gen-4', 'gen-3', 'regenerate:repair_budget_exhausted'],
      ['gen-3', 'gen-2', 'repair:input_drift'],
      ['gen-2', 'gen-1', 'repair:degraded'],
    ]);
  });

  test('a repair spends the budget, anything else resets it; health starts over', () => {
    let artifact = nextGeneration(undefined, identity, generation('A', 'forge'), 'T1');
    artifact = { ...artifact, recent_failure_rate: 0.9, input_drift_at: 'T1', success_count: 5 };
    artifact = nextGeneration(artifact, identity, generation('B', 'repair'), 'T2');
    expect(artifact).toMatchObject({
      repair_count_since_regeneration: 1,
      last_repaired_at: 'T2',
      recent_failure_rate: 0,
      input_drift_at: null,
      success_count: 5,
    });
    artifact = nextGeneration(artifact, identity, generation('C', 'repair'), 'T3');
    expect(artifact.repair_count_since_regeneration).toBe(2);
    artifact = nextGeneration(artifact, identity, generation('D', 'regenerate'), 'T4');
    expect(artifact.repair_count_since_regeneration).toBe(0);
    expect(artifact.last_repaired_at).toBe('T3');
  });

  test('an explicit parent wins over the current generation', () => {
    const first = nextGeneration(undefined, identity, generation('A', 'forge'), 'T1');
    const second = nextGeneration(
      first,
      identity,
      { ...generation('B', 'regenerate'), parent: null },
      'T2',
    );
    expect(second.history[0]?.parent_id).toBeNull();
  });
});
