import { Validator } from '@cfworker/json-schema';
import type { JsonSchema } from './language-model.js';

/** Validates final answers against the JSON Schema given as `outputSchema`. */
export class OutputSchema {
  /** The schema, as offered to the model in the SUBMIT tool. */
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
   * Checks `value`. Returns `undefined` when it conforms, else one readable problem listing
   * (at most five) failing locations, written for the model to fix its answer.
   */
  check(value: unknown): string | undefined {
    const result = this.#validator.validate(value);
    if (result.valid) return undefined;
    const leaves = result.errors.filter(
      (error) =>
        !['properties', 'items', 'allOf', 'anyOf', 'oneOf', '$ref'].includes(error.keyword),
    );
    const shown = (leaves.length > 0 ? leaves : result.errors).slice(0, 5);
    const details = shown.map((error) => `${error.instanceLocation || '#'}: ${error.error}`);
    return `the answer does not match the output schema (${details.join('; ')})`;
  }
}
