import type { HostTool } from './host-tool.js';
import type { InferSchemaOutput, Schema } from '../../schema.js';

/**
 * Writes a host tool with its input typed from its schema: with a Standard Schema (zod,
 * valibot, arktype) `execute` receives the schema's output type; with a JSON Schema,
 * `unknown`. Returns the tool as given; the schema is checked at `createRLM`.
 *
 * @example
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function defineTool<const InputSchema extends Schema>(tool: {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: InputSchema;
  execute(
    input: InferSchemaOutput<InputSchema>,
    options: { readonly signal: AbortSignal },
  ): unknown;
}): HostTool<InferSchemaOutput<InputSchema>> {
  return tool as HostTool<InferSchemaOutput<InputSchema>>;
}
