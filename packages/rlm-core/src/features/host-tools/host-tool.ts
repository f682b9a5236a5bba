import type { Schema } from '../../schema.js';

/** Where a host tool's result is stored as a named artifact record. */
export interface ToolOutput {
  /** The record's name; later inputs refer to it as `"@name"`. */
  readonly name: string;
  /** What kind of thing it is (`data`, `file`, `report`, ...). Default `data`. */
  readonly type?: string;
  readonly description?: string;
  readonly purpose?: string;
}

/**
 * A typed host function model code can call as `await name(input, { outputs })`. The input is
 * validated against `inputSchema` after `"@name"` references are resolved to artifact values.
 * A failure (an invalid input, or `execute` throwing) reaches model code as an `Error` carrying
 * only the message. Write it with {@link defineTool} to have `input` typed from a Standard
 * Schema.
 */
export interface HostTool<Input = unknown> {
  /** A JavaScript identifier, not one of the scaffold names (`context`, `llm_query`, ...). */
  readonly name: string;
  /** What it does, for the prompt. */
  readonly description: string;
  /**
   * The input's schema: a JSON Schema, a Standard Schema with `~standard.jsonSchema` (zod 4,
   * arktype 2, valibot through `toStandardJsonSchema`), or `{ schema, jsonSchema }`. The model
   * is shown its JSON Schema.
   */
  readonly inputSchema: Schema<Input>;
  /**
   * Does the work with the validated input (a Standard Schema's output: coerced or transformed
   * as the schema says). Must resolve to plain data (structured-clonable). `signal` aborts
   * when the run ends.
   */
  execute(input: Input, options: { readonly signal: AbortSignal }): unknown;
}
