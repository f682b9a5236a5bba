import { Validator } from '@cfworker/json-schema';
import { describeValue } from './bridge/describe-value.js';
import type { JsonSchema } from './language-model.js';

/** Validates values against a JSON Schema (draft 2020-12): the JSON Schema path of a `Schema`. */
export class JsonSchemaCheck {
  /** The schema, as offered to the model. */
  readonly schema: JsonSchema;
  readonly #validator: Validator;

  constructor(schema: JsonSchema) {
    this.schema = schema;
    this.#validator = new Validator(
      schema as ConstructorParameters<typeof Validator>[0],
      '2020-12',
      false,
    );
  }

  /**
   * Checks `value`. Returns `undefined` when it conforms, else one line per failing location,
   * e.g. `#/count: Instance type "string" is invalid.` (the innermost failures when there are
   * any, so that a wrong leaf is not also reported as a wrong object around it).
   */
  check(value: unknown): string[] | undefined {
    let result: ReturnType<Validator['validate']>;
    try {
      result = this.#validator.validate(value);
    } catch {
      // The validator throws on what JSON has no type for (undefined, a bigint, a function).
      return [`#: ${describeValue(value)} is not JSON data`];
    }
    if (result.valid) return undefined;
    const leaves = result.errors.filter(
      (error) =>
        !['properties', 'items', 'allOf', 'anyOf', 'oneOf', '$ref'].includes(error.keyword),
    );
    return (leaves.length > 0 ? leaves : result.errors).map(
      (error) => `${error.instanceLocation || '#'}: ${error.error}`,
    );
  }
}
