import { describe, expect, test } from 'vitest';
import { createRLM } from '../../create-rlm.js';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { createScriptedModel } from '../../testing/scripted-model.js';
import { createScriptedSandbox } from '../../testing/scripted-sandbox.js';
import type { ArtifactStore } from '../../artifact-store.js';
import { resolveArtifactsSettings } from './artifacts-settings.js';

// Only its presence is checked by the settings; no method of it is called here.
const store = {} as ArtifactStore;

describe('artifacts.runNamespace', () => {
  test('is kept as given, and absent by default', () => {
    expect(
      resolveArtifactsSettings({ store, runNamespace: 'eval:nightly/variant-a' }),
    ).toMatchObject({ runNamespace: 'eval:nightly/variant-a' });
    expect(resolveArtifactsSettings({ store }).runNamespace).toBeUndefined();
    expect(resolveArtifactsSettings(undefined).runNamespace).toBeUndefined();
    expect(
      resolveArtifactsSettings({ store, runNamespace: 'x'.repeat(256) }).runNamespace,
    ).toHaveLength(256);
  });

  test.each([
    ['a number', 7, /must be a string, got number/],
    ['null', null, /must be a string, got null/],
    ['an object', { toString: () => 'a' }, /must be a string, got object/],
    ['empty', '', /1 to 256 characters, got 0/],
    ['huge', 'n'.repeat(100_000), /1 to 256 characters, got 100000/],
    ['a line break', 'eval\nvariant', /control characters/],
    ['a NUL', 'eval\u0000a', /control characters/],
    ['surrounding spaces', ' eval:a', /must not start or end with spaces/],
    ['only spaces', '   ', /must not start or end with spaces/],
  ])('%s is refused with a ConfigurationError naming the setting', (_, value, message) => {
    const build = () =>
      createRLM({
        model: createScriptedModel([]),
        sandbox: createScriptedSandbox({}),
        artifacts: { store, runNamespace: value as string },
      });
    expect(build).toThrow(message);
    try {
      build();
    } catch (error) {
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).setting).toBe('artifacts.runNamespace');
      expect((error as Error).message).toMatch(
        /^@rlm\/core: artifacts\.runNamespace .*; give a short name/,
      );
      expect((error as Error).message.length).toBeLessThan(200);
    }
  });

  test('without a store it is refused: it would keep nothing apart', () => {
    expect(() =>
      resolveArtifactsSettings({ runNamespace: 'eval:a' } as Parameters<
        typeof resolveArtifactsSettings
      >[0]),
    ).toThrow(/no artifacts\.store is given/);
  });
});
