import { describeValue } from './describe-value.js';
import { measurePlainData } from './measure-plain-data.js';

/**
 * Reads a prompt argument (of `llm_query`, `llm_query_batched`, or `sub_rlm` at the last depth):
 * a string with something in it, or plain data, which is sent as its JSON text.
 *
 * @param usage how the argument is written, for the error: `llm_query(prompt)`.
 * @throws Error written for model code, saying what to pass instead.
 */
export function readPrompt(value: unknown, usage: string): string {
  if (typeof value === 'string' && value.trim().length > 0) return value;
  if (value === undefined || value === null || typeof value === 'string') {
    throw new Error(`${usage} needs a non-empty string; got ${describeValue(value)}`);
  }
  return toJsonText(value, usage);
}

/**
 * Reads the prompts of `llm_query_batched(prompts)`: an array of prompt arguments, each read by
 * {@link readPrompt}. The first bad prompt is named by its index. The prompts that are data
 * share one size limit, so many references to one large object cannot multiply into JSON text.
 *
 * @throws Error written for model code, saying what to pass instead.
 */
export function readPrompts(value: unknown, usage: string): string[] {
  if (!Array.isArray(value)) {
    throw new Error(`${usage} needs an array of prompt strings; got ${describeValue(value)}`);
  }
  const data = value.filter((prompt) => typeof prompt !== 'string');
  if (data.length > 1) {
    const measured = measurePlainData(data);
    if (!measured.ok) {
      throw new Error(
        `${usage} needs prompt strings or small plain JSON data: ${measured.problem}`,
      );
    }
  }
  return value.map((prompt, index) => readPrompt(prompt, `${usage}: prompt ${index}`));
}

/**
 * The JSON text of plain data, for a prompt. Measures the value first (see
 * {@link measurePlainData}), so the text is never built when it would be too large.
 *
 * @throws Error written for model code when the value has no JSON text (a bigint, a cycle, a
 *   function, a throwing `toJSON`) or would be too large.
 */
export function toJsonText(value: unknown, usage: string): string {
  const measured = measurePlainData(value);
  if (!measured.ok) {
    throw new Error(
      `${usage} needs a string or plain JSON data; got ${describeValue(value)}: ${measured.problem}`,
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new Error(
      `${usage} needs a string or plain JSON data; got ${describeValue(value)} that cannot be written as JSON (${messageOf(error)})`,
    );
  }
  if (text === undefined) {
    throw new Error(`${usage} needs a string or plain JSON data; got ${describeValue(value)}`);
  }
  return text;
}

function messageOf(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : String(error);
  } catch {
    return 'unknown error';
  }
}
