import { InvalidToolNameError } from './errors/invalid-tool-name-error.js';

/** What a role or method name must match: an identifier of 1 to 64 characters. */
export const toolNamePattern = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Device names Windows refuses as file names, whatever the extension. */
const windowsDeviceNames = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * True when `value` is a valid role or method name: it matches {@link toolNamePattern} and is
 * not a Windows device name, so it is safe as a path segment on every platform.
 */
export function isToolName(value: unknown): value is string {
  return (
    typeof value === 'string' && toolNamePattern.test(value) && !windowsDeviceNames.test(value)
  );
}

/** Throws {@link InvalidToolNameError} unless `value` is a valid role or method name. */
export function assertToolName(kind: 'role' | 'method', value: unknown): asserts value is string {
  if (!isToolName(value)) throw new InvalidToolNameError(kind, value);
}
