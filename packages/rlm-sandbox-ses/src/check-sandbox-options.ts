import { isolatedEvaluatorName, SandboxError, type SandboxOptions } from '@rlm/core';
import { isIdentifierName } from './is-identifier-name.js';

/**
 * Checks the names and values of a sandbox's host functions, internal host functions and guest
 * helpers.
 *
 * @throws SandboxError naming the first one that is not usable and what to give instead.
 */
export function checkSandboxOptions(options: SandboxOptions): void {
  for (const [name, fn] of Object.entries(options.hostFunctions)) {
    if (!isIdentifierName(name) || name === 'print' || name === 'console') {
      throw new SandboxError(
        `@rlm/sandbox-ses: host function name ${JSON.stringify(name)} is not usable; use an identifier other than print and console`,
      );
    }
    if (typeof fn !== 'function') {
      throw new SandboxError(`@rlm/sandbox-ses: host function ${name} is not a function`);
    }
  }
  for (const [name, fn] of Object.entries(options.internalHostFunctions ?? {})) {
    if (
      !isIdentifierName(name) ||
      name === isolatedEvaluatorName ||
      Object.hasOwn(options.hostFunctions, name) ||
      Object.hasOwn(options.guestHelpers ?? {}, name) ||
      typeof fn !== 'function'
    ) {
      throw new SandboxError(
        `@rlm/sandbox-ses: internal host function ${JSON.stringify(name)} needs an identifier name not taken by ${isolatedEvaluatorName}, a host function or a guest helper, and a function`,
      );
    }
  }
  for (const [name, source] of Object.entries(options.guestHelpers ?? {})) {
    if (
      !isIdentifierName(name) ||
      name === 'print' ||
      name === 'console' ||
      Object.hasOwn(options.hostFunctions, name) ||
      typeof source !== 'string'
    ) {
      throw new SandboxError(
        `@rlm/sandbox-ses: guest helper ${JSON.stringify(name)} needs an identifier name not taken by print, console or a host function, and function source text`,
      );
    }
  }
}
