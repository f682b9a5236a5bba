import type { ArtifactStore } from '../../artifact-store.js';
import type { HostToolRegistry } from './host-tool-registry.js';
import type { ArtifactQuota } from '../artifacts/artifact-quota.js';
import type { Feature } from '../feature.js';

/**
 * Host tools (`createRLM({ tools })`): each tool is a host function of its own name; its
 * description goes in the system prompt. With a store, `"@name"` inputs resolve and outputs are
 * stored as named records, counted against the run's quota.
 */
export function hostToolsFeature(
  registry: HostToolRegistry,
  options: { readonly artifacts: ArtifactStore | undefined; readonly quota: ArtifactQuota },
): Feature {
  const description = registry.describe();
  return {
    name: 'host tools',
    hostFunctions: Object.fromEntries(
      registry.names.map((name) => [
        name,
        ({ request }: Parameters<Feature['hostFunctions'][string]>[0]) =>
          registry.call(name, request.args, options.artifacts, request.signal, options.quota),
      ]),
    ),
    replHelp: description
      ? [
          '',
          'Host tools (async functions). Inputs may use "@name" to pass an artifact value; pass',
          '`{ outputs: [{ name, type, description, purpose }] }` to store the result as artifacts:',
          description,
        ]
      : [],
  };
}
