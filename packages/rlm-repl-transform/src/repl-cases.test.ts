import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { lastExpressionStatement } from './last-expression.js';
import { replCases } from './repl-cases.js';
import { topLevelDeclarations } from './top-level-declarations.js';
import { assignedUndeclaredNames } from './undeclared-assignments.js';

describe('the REPL rules, on the shared table', () => {
  for (const replCase of replCases) {
    it(replCase.name, () => {
      for (const step of replCase.steps) {
        const program = parse(step.code, { ecmaVersion: 'latest', sourceType: 'module' });
        const persisted = new Set([
          ...topLevelDeclarations(program).keys(),
          ...assignedUndeclaredNames(program),
        ]);
        expect([...persisted].sort(), step.code).toEqual([...step.persists].sort());
        expect(lastExpressionStatement(program) !== undefined, step.code).toBe(step.returnsValue);
      }
    });
  }
});
