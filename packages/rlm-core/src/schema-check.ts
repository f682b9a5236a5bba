import type { StandardSchemaV1 } from '@standard-schema/spec';
import { JsonSchemaCheck } from './json-schema-check.js';
import type { JsonSchema } from './language-model.js';
import type { Schema } from './schema.js';

/** What a {@link SchemaCheck} says of one value. */
export type SchemaVerdict<Output> =
  | { readonly ok: true; readonly value: Output }
  | { readonly ok: false; readonly issues: readonly string[] };

/** Issues shown per rejected value; the rest are counted. */
export const maxShownIssues = 5;
/** Characters of one issue line. */
export const maxIssueChars = 200;

/**
 * Validates values against a {@link Schema}: host tool inputs and final answers. A JSON Schema
 * is checked by a draft 2020-12 validator and the value comes back as it was; a Standard
 * Schema is checked by its own library (possibly async) and the value comes back as the
 * library returns it (coerced or transformed). Construction throws a `TypeError` naming
 * `where` for anything that is not a schema, or a Standard Schema that yields no JSON Schema.
 */
export class SchemaCheck<Output = unknown> {
  /** The JSON Schema offered to the model (the prompt, the SUBMIT tool). */
  readonly schema: JsonSchema;
  readonly #check: (value: unknown) => Promise<SchemaVerdict<Output>>;

  constructor(schema: Schema<Output>, where: string) {
    if (isStandardSchema(schema)) {
      this.schema = standardJsonSchema(schema, where);
      this.#check = (value) => validateStandard(schema as StandardSchemaV1<unknown, Output>, value);
      return;
    }
    if (isPlainObject(schema) && isStandardSchema(schema.schema)) {
      const pair = schema as { schema: StandardSchemaV1<unknown, Output>; jsonSchema: unknown };
      if (!isPlainObject(pair.jsonSchema)) {
        throw new TypeError(
          `@rlm/core: ${where}: { schema, jsonSchema } needs jsonSchema, the JSON Schema object shown to the model`,
        );
      }
      this.schema = pair.jsonSchema;
      this.#check = (value) => validateStandard(pair.schema, value);
      return;
    }
    if (!isPlainObject(schema)) {
      throw new TypeError(
        `@rlm/core: ${where} must be a JSON Schema object, a Standard Schema (zod, valibot, arktype) or { schema, jsonSchema }`,
      );
    }
    const json = new JsonSchemaCheck(schema);
    this.schema = schema;
    this.#check = async (value) => {
      const issues = json.check(value);
      return issues ? { ok: false, issues } : { ok: true, value: value as Output };
    };
  }

  /** Checks `value`. Never rejects: a validator that throws is reported as an issue. */
  check(value: unknown): Promise<SchemaVerdict<Output>> {
    return this.#check(value);
  }
}

/**
 * Issue lines as one bounded text: at most {@link maxShownIssues} lines of at most
 * {@link maxIssueChars} characters each, then how many more there were.
 */
export function formatIssues(issues: readonly string[]): string {
  const shown = issues.slice(0, maxShownIssues).map((issue) => {
    const line = issue.replace(/\s+/g, ' ').trim();
    return line.length > maxIssueChars ? `${line.slice(0, maxIssueChars - 3)}...` : line;
  });
  const more = issues.length - shown.length;
  if (more > 0) shown.push(`(and ${more} more issue${more === 1 ? '' : 's'})`);
  return shown.join('\n');
}

async function validateStandard<Output>(
  schema: StandardSchemaV1<unknown, Output>,
  value: unknown,
): Promise<SchemaVerdict<Output>> {
  let result: StandardSchemaV1.Result<Output>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [`#: the schema's validator failed: ${message}`] };
  }
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => `${issuePath(issue.path)}: ${issue.message}`),
  };
}

/** A Standard Schema issue path as a JSON Pointer fragment, the form JSON Schema issues use. */
function issuePath(path: StandardSchemaV1.Issue['path']): string {
  if (!path || path.length === 0) return '#';
  const keys = path.map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    const text = typeof key === 'symbol' ? (key.description ?? 'symbol') : String(key);
    return text.replace(/~/g, '~0').replace(/\//g, '~1');
  });
  return `#/${keys.join('/')}`;
}

/** The JSON Schema of what the model must produce: the schema's input side, draft 2020-12. */
function standardJsonSchema(schema: StandardSchemaV1, where: string): JsonSchema {
  const converter = (schema['~standard'] as { jsonSchema?: { input?: unknown } }).jsonSchema;
  if (typeof converter?.input !== 'function') {
    throw new TypeError(
      `@rlm/core: ${where}: this ${schema['~standard'].vendor} schema has no JSON Schema for the model; pass { schema, jsonSchema } (for valibot, wrap it with toStandardJsonSchema from @valibot/to-json-schema)`,
    );
  }
  let converted: unknown;
  try {
    converted = (converter.input as (options: { target: string }) => unknown)({
      target: 'draft-2020-12',
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TypeError(
      `@rlm/core: ${where}: the ${schema['~standard'].vendor} schema cannot be written as JSON Schema (${message}); pass { schema, jsonSchema } with a JSON Schema you write`,
      { cause: error },
    );
  }
  if (!isPlainObject(converted)) {
    throw new TypeError(
      `@rlm/core: ${where}: the ${schema['~standard'].vendor} schema's JSON Schema is not an object; pass { schema, jsonSchema }`,
    );
  }
  // The dialect marker means nothing inside the SUBMIT tool's schema, where it is nested.
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof props === 'object' && props !== null && typeof props.validate === 'function';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
