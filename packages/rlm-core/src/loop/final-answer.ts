import { describeValue } from '../bridge/describe-value.js';
import { BudgetExhaustedError } from '../errors/budget-exhausted-error.js';
import { errorMessage } from '../error-message.js';
import { NoFinalAnswerError } from '../errors/no-final-answer-error.js';
import type { FinalSource } from '../events.js';
import { findFinalAnswer } from '../find-final-answer.js';

import type { GenerateResult } from '../language-model.js';
import { checkAnswer } from '../output-check.js';
import { parseResponse } from '../parse-response.js';
import type { SchemaCheck } from '../schema-check.js';
import { readSubmitCall, type SubmitRequest, submitToolName } from '../submit-tool.js';

/**
 * What counts as a final answer, in one place: the three ways to give one (the SUBMIT tool,
 * `SUBMIT` / `FINAL_VAR` in code, `FINAL(...)` / `FINAL_VAR(...)` in prose), reading it (a
 * variable through the sandbox), checking it against the output schema, and the partial answer
 * a failed call carries.
 */

/** A final answer named during a step, not yet read or checked. */
export type PendingFinal =
  | { readonly kind: 'value'; readonly value: unknown; readonly source: FinalSource }
  | { readonly kind: 'variable'; readonly variable: string; readonly source: FinalSource };

/** An accepted answer, or what to tell the model about why it was not accepted. */
export type AnswerReading = { readonly answer: unknown } | { readonly problem: string };

/** Host functions that record a final answer from sandbox code instead of doing host work. */
export const finalRecorderNames: readonly string[] = ['SUBMIT', 'FINAL_VAR'];

/**
 * PURE: reads a `SUBMIT(value)` or `FINAL_VAR(name)` call made by sandbox code. Returns the
 * pending final, or the error message model code sees when the argument is unusable.
 */
export function readCodeFinal(name: string, argument: unknown): PendingFinal | { problem: string } {
  if (name === 'SUBMIT') {
    return argument === undefined
      ? { problem: 'SUBMIT(value) needs a value; got undefined' }
      : { kind: 'value', value: argument, source: 'submit-code' };
  }
  return typeof argument === 'string' && argument.trim().length > 0
    ? { kind: 'variable', variable: argument, source: 'final-var' }
    : {
        problem: `FINAL_VAR(name) needs the variable name as a string, e.g. FINAL_VAR("answer"); got ${describeValue(argument)}`,
      };
}

/** PURE: the pending final of a readable SUBMIT tool call. */
export function pendingFromSubmit(submit: SubmitRequest, source: FinalSource): PendingFinal {
  return submit.kind === 'answer'
    ? { kind: 'value', value: submit.answer, source }
    : { kind: 'variable', variable: submit.variable, source };
}

/**
 * PURE: a `FINAL(...)` / `FINAL_VAR(...)` answer written in the prose of a response (outside
 * every code fence), or `undefined`.
 */
export function proseFinal(
  text: string,
  codeLanguages: readonly string[],
): PendingFinal | undefined {
  const marker = findFinalAnswer(parseResponse(text, codeLanguages).prose);
  if (!marker) return undefined;
  return marker.kind === 'final'
    ? { kind: 'value', value: marker.answer, source: 'final-text' }
    : { kind: 'variable', variable: marker.variable, source: 'final-var' };
}

/**
 * PURE: the answer to the forced final prompt: a readable SUBMIT call first, else a prose
 * `FINAL(...)` / `FINAL_VAR(...)`. A prose answer keeps its own source here, so that with an
 * output schema `FINAL(...)` text is still parsed as JSON; the call reports `extract` either way.
 */
export function extractFinal(
  response: GenerateResult,
  codeLanguages: readonly string[],
): PendingFinal | undefined {
  const submit = response.toolCalls.find((toolCall) => toolCall.name === submitToolName);
  const read = submit ? readSubmitCall(submit) : undefined;
  return read && !('problem' in read)
    ? pendingFromSubmit(read, 'extract')
    : proseFinal(response.text, codeLanguages);
}

/**
 * Reads and checks a final answer: a value as it is, a variable through `readVariable`; then
 * the output schema check (`output-check.ts`: a prose `FINAL(...)` answer is parsed as JSON
 * when it parses). Never rejects: a problem is returned, worded for the model.
 */
export async function readFinalAnswer(
  final: PendingFinal,
  readVariable: (name: string) => Promise<unknown>,
  schema: SchemaCheck | undefined,
): Promise<AnswerReading> {
  let answer: unknown;
  if (final.kind === 'value') answer = final.value;
  else {
    try {
      answer = await readVariable(final.variable);
    } catch (error) {
      return {
        problem: `Could not return variable ${JSON.stringify(final.variable)}: ${errorMessage(error)}. Define it first, or answer directly.`,
      };
    }
  }
  return checkAnswer(schema, answer, final.source);
}

/** What a call that ends without an answer knows. */
export interface NoAnswerFacts {
  readonly iterations: number;
  readonly depth: number;
  /** The call's last non-empty model text ('' when none). */
  readonly lastText: string;
}

/** PURE: the error of a call that ran out of ways to answer; its last text is the partial answer. */
export function noFinalAnswer(facts: NoAnswerFacts, reason: string): NoFinalAnswerError {
  return new NoFinalAnswerError(
    `@rlm/core: no final answer after ${facts.iterations} iterations: ${reason}; raise limits.maxIterations or check the model's output`,
    {
      diagnostics: {
        iterations: facts.iterations,
        depth: facts.depth,
        lastResponse: facts.lastText.slice(0, 2_000),
        reason,
      },
      ...(facts.lastText ? { partialAnswer: facts.lastText } : {}),
    },
  );
}

/**
 * PURE: a budget error that lacks a partial answer gets the call's last text as one; any other
 * error is returned as it is.
 */
export function withPartialAnswer(error: unknown, lastText: string): unknown {
  if (!BudgetExhaustedError.isInstance(error) || error.partialAnswer || !lastText) return error;
  return new BudgetExhaustedError(error.message, {
    budget: error.budget,
    partialAnswer: lastText,
    cause: error.cause,
  });
}
