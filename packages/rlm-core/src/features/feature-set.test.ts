import { describe, expect, it } from 'vitest';
import { Budget } from '../budget.js';
import type { DurableToolStore } from '../durable-tool-store.js';
import { HostToolRegistry } from './host-tools/host-tool-registry.js';
import { coreFunctionNames } from '../loop/core-functions.js';
import { ArtifactQuota } from './artifacts/artifact-quota.js';
import { artifactsFeature } from './artifacts/artifacts-feature.js';
import { durableToolsFeature } from './durable-tools/durable-tools-feature.js';
import type { Feature } from './feature.js';
import { FeatureSet } from './feature-set.js';
import { hostToolsFeature } from './host-tools/host-tools-feature.js';
import { reservedNames } from './reserved-names.js';

const quota = new ArtifactQuota({ artifactBytes: 1_000_000, artifactCount: 100 });
const registry = new HostToolRegistry([
  {
    name: 'count_words',
    description: 'Counts words.',
    inputSchema: { type: 'object' },
    execute: async () => 0,
  },
]);

function installed(): Feature[] {
  return [
    artifactsFeature({
      artifacts: {} as never,
      runKey: 'run',
      quota,
      budget: new Budget({}),
      startedAt: 0,
      catalogChars: 1_000,
      largeAnswerChars: 10,
      checkpointMaxVariableBytes: 1_000,
      checkpointMaxLagMs: 30_000,
      emit: () => {},
    }),
    durableToolsFeature({} as DurableToolStore, { modelId: 'model' }),
    hostToolsFeature(registry, { artifacts: undefined, quota }),
  ];
}

describe('features', () => {
  it('reserve every name they add, so a host tool cannot take it', () => {
    for (const feature of installed().slice(0, 2)) {
      const names = [
        ...Object.keys(feature.hostFunctions),
        ...Object.keys(feature.internalHostFunctions ?? {}),
        ...Object.keys(feature.guestHelpers ?? {}),
      ];
      for (const name of names) expect(reservedNames.has(name), name).toBe(true);
    }
    expect(() => new HostToolRegistry([{ ...registry, name: 'store' } as never])).toThrow(
      /not one of/,
    );
  });

  it('combine into the sandbox names, helpers and prompt lines, in install order', () => {
    const set = new FeatureSet(installed(), coreFunctionNames);
    expect(set.hostFunctionNames).toEqual([
      'store',
      'load',
      'list_artifacts',
      'delegate',
      'count_words',
    ]);
    expect(set.internalHostFunctionNames).toEqual(['__tool_plan', '__tool_report']);
    expect(Object.keys(set.guestHelpers)).toEqual(['tool']);
    expect(set.replHelp.join('\n')).toMatch(
      /store\(name[\s\S]*delegate\(role[\s\S]*count_words\(input/,
    );
    expect(set.hostFunction('__tool_plan')).toBeTypeOf('function');
  });

  it('refuse a feature that takes a name already taken', () => {
    const clash: Feature = { name: 'clash', hostFunctions: { llm_query: () => 1 } };
    expect(() => new FeatureSet([clash], coreFunctionNames)).toThrow(/llm_query is already taken/);
  });

  it('wait for every pending beforeSettle, and settle at once when none is pending', async () => {
    const call = { parentId: undefined } as never;
    expect(new FeatureSet([], coreFunctionNames).beforeSettle(call, 'failed')).toBeUndefined();
    let done = false;
    const slow: Feature = {
      name: 'slow',
      hostFunctions: {},
      beforeSettle: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            done = true;
            resolve();
          }, 1),
        ),
    };
    await new FeatureSet([slow], coreFunctionNames).beforeSettle(call, 'failed');
    expect(done).toBe(true);
  });
});
