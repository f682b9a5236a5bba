import { ConfigurationError } from './errors/configuration-error.js';

/** Flat names already warned about in this process: one warning per name. */
const warned = new Set<string>();

/**
 * The value of a setting that has a grouped path and a deprecated flat name: the grouped one
 * when only it is set, the flat one (with one `RLM_DEP_FLAT_SETTINGS` deprecation warning per
 * name per process) when only it is set.
 *
 * @throws {ConfigurationError} when both are set to different values.
 */
export function groupedOrFlat<T>(
  grouped: T | undefined,
  flat: T | undefined,
  flatName: string,
  groupedPath: string,
): T | undefined {
  if (flat === undefined) return grouped;
  if (grouped !== undefined && grouped !== flat) {
    throw new ConfigurationError(
      `@rlm/core: createRLM got both ${flatName} and ${groupedPath} with different values; keep only ${groupedPath}`,
      { setting: groupedPath },
    );
  }
  if (!warned.has(flatName)) {
    warned.add(flatName);
    process.emitWarning(
      `@rlm/core: createRLM({ ${flatName} }) is deprecated and will be removed in the next minor version; use ${groupedPath}`,
      { type: 'DeprecationWarning', code: 'RLM_DEP_FLAT_SETTINGS' },
    );
  }
  return flat;
}
