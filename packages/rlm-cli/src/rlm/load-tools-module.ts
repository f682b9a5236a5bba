import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { HostTool } from '@rlm/core';
import { UsageError } from '../usage-error.js';

/** How long a tools module may take to import (its top-level await included), in milliseconds. */
export const defaultToolsModuleTimeoutMs = 60_000;

/**
 * Imports the host tools a `--tools` module exports: its `tools` export or its default export,
 * an array of `{ name, description, inputSchema, execute }` with distinct JavaScript-identifier
 * names. Throws a {@link UsageError} with one line when the module cannot be imported, when its
 * top-level await cannot settle (nothing left to run) or has not settled within `timeoutMs`, or
 * when it exports no such array. Names the sandbox reserves are checked when the RLM is created.
 */
export async function loadToolsModule(
  modulePath: string,
  timeoutMs = defaultToolsModuleTimeoutMs,
): Promise<HostTool[]> {
  const url = pathToFileURL(path.resolve(modulePath)).href;
  let exports: Record<string, unknown>;
  try {
    exports = await importWithin(url, modulePath, timeoutMs);
  } catch (error) {
    if (UsageError.isInstance(error)) throw error;
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(`cannot load --tools ${modulePath}: ${reason}`, { cause: error });
  }
  const tools = exports.tools ?? exports.default;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new UsageError(
      `--tools ${modulePath} must export \`tools\` (or a default export): an array of { name, description, inputSchema, execute }`,
    );
  }
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    const candidate = tool as Partial<HostTool> | null;
    if (
      typeof candidate?.name !== 'string' ||
      typeof candidate.description !== 'string' ||
      // A JSON Schema or a Standard Schema (an arktype schema is a function); core checks it.
      (typeof candidate.inputSchema !== 'object' && typeof candidate.inputSchema !== 'function') ||
      candidate.inputSchema === null ||
      typeof candidate.execute !== 'function'
    ) {
      throw new UsageError(
        `--tools ${modulePath}: tool ${index} needs a string name and description, an inputSchema (a JSON Schema or a zod, valibot or arktype schema) and an execute function`,
      );
    }
    if (!/^[A-Za-z_$][\w$]*$/.test(candidate.name)) {
      throw new UsageError(
        `--tools ${modulePath}: tool name ${JSON.stringify(candidate.name)} is not a JavaScript identifier; use letters, digits, _ and $ only`,
      );
    }
    if (names.has(candidate.name)) {
      throw new UsageError(
        `--tools ${modulePath}: two tools are named ${JSON.stringify(candidate.name)}; give each its own name`,
      );
    }
    names.add(candidate.name);
  });
  return tools as HostTool[];
}

/**
 * `import(url)`, bounded: rejects with a {@link UsageError} when the event loop runs dry while the
 * module's top-level await is pending (it can never settle) or after `timeoutMs`.
 */
function importWithin(
  url: string,
  modulePath: string,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onIdle = () =>
      reject(
        new UsageError(
          `--tools ${modulePath}: its top-level await never settles (it waits for nothing that can happen); fix the module`,
        ),
      );
    const timer = setTimeout(
      () =>
        reject(
          new UsageError(
            `--tools ${modulePath}: the module did not finish loading within ${timeoutMs / 1000} s (a top-level await that does not settle?); fix the module`,
          ),
        ),
      timeoutMs,
    );
    // Unref'd, so an import that leaves nothing to run reaches beforeExit instead of waiting.
    timer.unref();
    process.once('beforeExit', onIdle);
    (import(url) as Promise<Record<string, unknown>>).then(resolve, reject).finally(() => {
      clearTimeout(timer);
      process.off('beforeExit', onIdle);
    });
  });
}
