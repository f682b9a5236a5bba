import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonSchema } from './language-model.js';

/**
 * A Standard Schema (zod, valibot, arktype, ...) that also converts itself to JSON Schema
 * through the Standard JSON Schema interface (`~standard.jsonSchema`): zod 4.2+ and arktype
 * 2.1.28+ schemas as they are, valibot schemas wrapped with `toStandardJsonSchema` from
 * `@valibot/to-json-schema`.
 */
export type StandardSchemaWithJsonSchema<Input = unknown, Output = Input> = StandardSchemaV1<
  Input,
  Output
> &
  StandardJSONSchemaV1<Input, Output>;

/**
 * A Standard Schema paired with the JSON Schema the model is shown, for a schema library
 * without the Standard JSON Schema interface. `schema` validates; `jsonSchema` only describes.
 */
export interface StandardSchemaPair<Input = unknown, Output = Input> {
  /** Validates (and may transform) the value; its output type is what the value types as. */
  readonly schema: StandardSchemaV1<Input, Output>;
  /** What the model is shown (the prompt, the SUBMIT tool). */
  readonly jsonSchema: JsonSchema;
}

/**
 * A schema of a host tool's input or of the final answer: a JSON Schema (validated by a
 * draft 2020-12 validator; the value types as `unknown`), a Standard Schema with
 * `~standard.jsonSchema`, or `{ schema, jsonSchema }`. With a Standard Schema the library
 * validates and the value types as the schema's output type.
 */
export type Schema<Output = unknown> =
  | JsonSchema
  | StandardSchemaWithJsonSchema<unknown, Output>
  | StandardSchemaPair<unknown, Output>;

/**
 * The type a value has once `S` accepted it: the output type of a Standard Schema (bare or in
 * a `{ schema, jsonSchema }` pair), else `unknown` (a JSON Schema, or no schema).
 */
export type InferSchemaOutput<S> =
  S extends StandardSchemaV1<unknown, infer Output>
    ? Output
    : S extends { readonly schema: StandardSchemaV1<unknown, infer Output> }
      ? Output
      : unknown;
