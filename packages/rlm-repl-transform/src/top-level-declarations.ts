import type { Program } from 'acorn';
import { collectVarNames, patternNames } from './pattern-names.js';

/** How a top-level name is declared. */
export type DeclarationKind = 'var' | 'let' | 'const' | 'function' | 'class';

/** A top-level declaration: its kind and where it starts (0 for `var`, found anywhere). */
export interface TopLevelDeclaration {
  readonly kind: DeclarationKind;
  readonly start: number;
}

/**
 * The REPL's persistence rule: the names `program` declares at its top level, which persist
 * into later executions. `let`, `const`, `function` and `class` count where they stand
 * directly in the program; `var` counts in any block outside functions. The first declaration
 * of a name wins. Other lexical declarations (`using`) are left out: a sandbox refuses them.
 */
export function topLevelDeclarations(program: Program): Map<string, TopLevelDeclaration> {
  const declarations = new Map<string, TopLevelDeclaration>();
  const declare = (name: string, kind: DeclarationKind, start: number) => {
    if (!declarations.has(name)) declarations.set(name, { kind, start });
  };
  for (const statement of program.body) {
    if (statement.type === 'VariableDeclaration' && statement.kind !== 'var') {
      const { kind } = statement;
      if (kind !== 'let' && kind !== 'const') continue;
      for (const declarator of statement.declarations) {
        for (const name of patternNames(declarator.id)) declare(name, kind, declarator.start);
      }
    } else if (statement.type === 'FunctionDeclaration' && statement.id) {
      declare(statement.id.name, 'function', statement.start);
    } else if (statement.type === 'ClassDeclaration' && statement.id) {
      declare(statement.id.name, 'class', statement.start);
    }
  }
  const vars = new Set<string>();
  collectVarNames(program, vars);
  for (const name of vars) declare(name, 'var', 0);
  return declarations;
}
