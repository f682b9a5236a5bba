import { topLevelDeclarations } from '@rlm/repl-transform';
import type { Program } from 'acorn';
import { failRewrite } from './fail-rewrite.js';
import { reservedPrefix } from './is-identifier-name.js';
import type { Rewriter, Scope } from './rewriter.js';

/**
 * Records the top-level names `program` declares (which become persisted variables, see
 * `topLevelDeclarations`) on `rewriter`, refusing declarations the REPL cannot persist and
 * protected, built-in and reserved names; returns the top scope.
 */
export function declareTopLevel(rewriter: Rewriter, program: Program): Scope {
  for (const statement of program.body) {
    if (
      statement.type === 'VariableDeclaration' &&
      statement.kind !== 'var' &&
      statement.kind !== 'let' &&
      statement.kind !== 'const'
    ) {
      failRewrite(
        rewriter.code,
        statement.start,
        `${statement.kind} declarations are not supported`,
      );
    }
  }
  for (const [name, { kind, start }] of topLevelDeclarations(program)) {
    rewriter.declarations.set(name, kind);
    const known = rewriter.scope?.kindOf(name);
    if (known === 'protected') {
      failRewrite(
        rewriter.code,
        start,
        `Cannot declare ${name}: the sandbox provides it and it is read-only`,
      );
    }
    if (known === 'builtin') {
      failRewrite(rewriter.code, start, `Cannot redeclare the built-in ${name}`);
    }
    if (name.startsWith(reservedPrefix)) {
      failRewrite(
        rewriter.code,
        start,
        `Names starting with ${reservedPrefix} are reserved by the sandbox`,
      );
    }
  }
  return { parent: undefined, kind: 'top', names: new Set(rewriter.declarations.keys()) };
}
