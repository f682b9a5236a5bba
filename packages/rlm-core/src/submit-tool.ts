import type { JsonSchema, ToolCall, ToolDefinition } from './language-model.js';

/** Name of the native finishing tool. */
export const submitToolName = 'SUBMIT';

/**
 * The native `SUBMIT` tool offered to models that support tools. With an output schema it
 * takes `{"value": <schema>}` or `{"variable": name}`; without, also `{"answer": text}`.
 */
export function buildSubmitTool(outputSchema?: JsonSchema): ToolDefinition {
  const variable = {
    type: 'string',
    description: 'Name of a REPL variable whose value is the final answer (best for long answers).',
  };
  if (outputSchema) {
    return {
      name: submitToolName,
      description:
        'Finish with your final answer, which must match the value schema. Give exactly one of: "value" (the answer) or "variable" (the name of a REPL variable holding it).',
      inputSchema: {
        type: 'object',
        properties: { value: outputSchema, variable },
        additionalProperties: false,
      },
    };
  }
  return {
    name: submitToolName,
    description:
      'Finish with your final answer. Give exactly one of: "answer" (text), "variable" (the name of a REPL variable holding the answer; best for long answers), or "value" (structured JSON).',
    inputSchema: {
      type: 'object',
      properties: {
        answer: { type: 'string', description: 'The final answer as text.' },
        variable,
        value: { description: 'The final answer as structured JSON.' },
      },
      additionalProperties: false,
    },
  };
}

/** What a SUBMIT call asks for. */
export type SubmitRequest =
  | { readonly kind: 'answer'; readonly answer: unknown }
  | { readonly kind: 'variable'; readonly variable: string };

/**
 * Reads a SUBMIT tool call's input. Returns a readable problem (to send back to the model)
 * when the payload did not decode or names nothing to submit.
 */
export function readSubmitCall(call: ToolCall): SubmitRequest | { readonly problem: string } {
  if (call.inputError !== undefined) {
    return {
      problem: `Your SUBMIT call could not be read (${call.inputError}). If the answer is long, store it in a REPL variable and call SUBMIT with {"variable": "name"}.`,
    };
  }
  const input = call.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      problem: 'SUBMIT needs an object: {"answer": ...}, {"variable": ...} or {"value": ...}.',
    };
  }
  const fields = input as Record<string, unknown>;
  if (typeof fields.answer === 'string') return { kind: 'answer', answer: fields.answer };
  if ('value' in fields && fields.value !== undefined)
    return { kind: 'answer', answer: fields.value };
  if (typeof fields.variable === 'string' && fields.variable.length > 0) {
    return { kind: 'variable', variable: fields.variable };
  }
  return {
    problem:
      'SUBMIT needs one of "answer" (a string), "variable" (a REPL variable name) or "value".',
  };
}
