import type { ArtifactStore } from '../../artifact-store.js';
import { describeValue } from '../../bridge/describe-value.js';
import type { ArtifactQuota } from './artifact-quota.js';

/** Host functions model code gets when an artifact store is configured. */
export const artifactFunctionNames = ['store', 'load', 'list_artifacts'] as const;

type ArtifactFunctionName = (typeof artifactFunctionNames)[number];

/**
 * Runs `store(name, value, { type?, description?, purpose? })`, `load(name)` or
 * `list_artifacts()` against the run's store. Rejects with a message written for the model.
 * `store` counts against the run's `quota` before it writes.
 *
 * @param origin recorded in a stored record's metadata.
 */
export function callArtifactFunction(
  name: ArtifactFunctionName,
  args: readonly unknown[],
  artifacts: ArtifactStore,
  origin: { readonly callId: string; readonly iteration: number },
  quota: ArtifactQuota,
): Promise<unknown> {
  const [recordName, value, options] = args;
  switch (name) {
    case 'store': {
      if (typeof recordName !== 'string' || recordName.length === 0 || value === undefined) {
        return Promise.reject(
          new Error(
            `store(name, value, { type?, description?, purpose? }) needs a name string and a value; got ${describeValue(recordName)} and ${describeValue(value)}`,
          ),
        );
      }
      const described = (typeof options === 'object' && options !== null ? options : {}) as {
        type?: unknown;
        description?: unknown;
        purpose?: unknown;
      };
      let reserved: number;
      try {
        reserved = quota.reserve(value, 'store(name, value)');
      } catch (error) {
        return Promise.reject(error);
      }
      return artifacts
        .put(recordName, {
          type: typeof described.type === 'string' ? described.type : 'data',
          value,
          description:
            typeof described.description === 'string' ? described.description : recordName,
          ...(typeof described.purpose === 'string' ? { purpose: described.purpose } : {}),
          metadata: { ...origin },
        })
        .catch((error: unknown) => {
          quota.cancel(reserved);
          throw error;
        });
    }
    case 'load':
      if (typeof recordName !== 'string' || recordName.length === 0) {
        return Promise.reject(
          new Error(`load(name) needs an artifact name string; got ${describeValue(recordName)}`),
        );
      }
      return artifacts.get(recordName).then((record) => {
        if (!record) {
          throw new Error(
            `load(name): no artifact named ${JSON.stringify(recordName)}; list_artifacts() lists them`,
          );
        }
        return record.value;
      });
    case 'list_artifacts':
      return artifacts.catalog();
  }
}
