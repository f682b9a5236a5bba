import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** SES as loaded by {@link loadSes}. */
export interface LoadedSes {
  /** Whether V8 compiled from `cachedData` (false without it, or when V8 refused it). */
  readonly usedCache: boolean;
  /** V8's code cache of SES with what has run so far; call after `lockdown()` to include it. */
  createCachedData(): Buffer;
}

/**
 * Loads SES (its CommonJS bundle, which defines `lockdown`, `Compartment` and `harden` on the
 * global object) through `vm.Script`, so that a code cache made by an earlier worker of the
 * same process spares this one the parsing and compiling (about half of a worker's start).
 * Run in the worker, before `lockdown()`. The cache only ever comes from a worker of this
 * process: V8 checks it against the source and rejects a stale one.
 */
export function loadSes(cachedData: Uint8Array | undefined): LoadedSes {
  const require = createRequire(import.meta.url);
  const filename = require.resolve('ses');
  const source = readFileSync(filename, 'utf8');
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    cachedData === undefined ? { filename } : { filename, cachedData },
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, filename, dirname(filename));
  return {
    usedCache: cachedData !== undefined && script.cachedDataRejected === false,
    createCachedData: () => script.createCachedData(),
  };
}
