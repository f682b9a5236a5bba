import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { HostTool } from '@rlm/core';
import { UsageError } from './usage-error.js';

/**
 * Imports the host tools a `--tools` module exports: its `tools` export or its default export,
 * an array of `{ name, description, inputSchema, execute }`. Throws a {@link UsageError} with
 * one line when the module cannot be imported or exports no such array.
 */
export async function loadToolsModule(modulePath: string): Promise<HostTool[]> {
  const url = pathToFileURL(path.resolve(modulePath)).href;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(`cannot load --tools ${modulePath}: ${reason}`, { cause: error });
  }
  const tools = exports.tools ?? exports.default;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new UsageError(
      `--tools ${modulePath} must export \`tools\` (or a default export): an array of { name, description, inputSchema, execute }`,
    );
  }
  tools.forEach((tool, index) => {
    const candidate = tool as Partial<HostTool> | null;
    if (
      typeof candidate?.name !== 'string' ||
      typeof candidate.description !== 'string' ||
      typeof candidate.inputSchema !== 'object' ||
      candidate.inputSchema === null ||
      typeof candidate.execute !== 'function'
    ) {
      throw new UsageError(
        `--tools ${modulePath}: tool ${index} needs a string name and description, an inputSchema object and an execute function`,
      );
    }
  });
  return tools as HostTool[];
}
