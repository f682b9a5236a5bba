import type { ExpressionStatement, Program } from 'acorn';

/**
 * The REPL's value rule: when the last statement of `program` is an expression statement, its
 * value is what the execution returns (and shows), as in Node's REPL; otherwise nothing is.
 */
export function lastExpressionStatement(program: Program): ExpressionStatement | undefined {
  const last = program.body.at(-1);
  return last?.type === 'ExpressionStatement' ? last : undefined;
}
