/** The names patterns and statements declare, as the REPL rewrite scopes them. */
import type { AnyNode, Pattern } from 'acorn';

/** The names a binding pattern binds, in order. */
export function patternNames(pattern: Pattern | null, names: string[] = []): string[] {
  if (pattern === null) return names;
  switch (pattern.type) {
    case 'Identifier':
      names.push(pattern.name);
      break;
    case 'ObjectPattern':
      for (const property of pattern.properties) {
        patternNames(property.type === 'RestElement' ? property : property.value, names);
      }
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements) patternNames(element, names);
      break;
    case 'AssignmentPattern':
      patternNames(pattern.left, names);
      break;
    case 'RestElement':
      patternNames(pattern.argument, names);
      break;
    case 'MemberExpression':
      break;
  }
  return names;
}

/** `var` names declared in `node`, not counting nested functions and static blocks. */
export function collectVarNames(node: AnyNode | null | undefined, names: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'VariableDeclaration':
      if (node.kind === 'var') {
        for (const declarator of node.declarations) {
          for (const name of patternNames(declarator.id)) names.add(name);
        }
      }
      return;
    case 'BlockStatement':
    case 'Program':
      for (const statement of node.body) collectVarNames(statement, names);
      return;
    case 'IfStatement':
      collectVarNames(node.consequent, names);
      collectVarNames(node.alternate, names);
      return;
    case 'ForStatement':
      collectVarNames(node.init, names);
      collectVarNames(node.body, names);
      return;
    case 'ForInStatement':
    case 'ForOfStatement':
      collectVarNames(node.left, names);
      collectVarNames(node.body, names);
      return;
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'LabeledStatement':
      collectVarNames(node.body, names);
      return;
    case 'TryStatement':
      collectVarNames(node.block, names);
      collectVarNames(node.handler?.body, names);
      collectVarNames(node.finalizer, names);
      return;
    case 'SwitchStatement':
      for (const switchCase of node.cases) {
        for (const statement of switchCase.consequent) collectVarNames(statement, names);
      }
      return;
    default:
      return;
  }
}

/** Names declared by `let`, `const`, `class` and `function` directly in `statements`. */
export function collectLexicalNames(statements: readonly AnyNode[], names: Set<string>): void {
  for (const statement of statements) {
    if (statement.type === 'VariableDeclaration' && statement.kind !== 'var') {
      for (const declarator of statement.declarations) {
        for (const name of patternNames(declarator.id)) names.add(name);
      }
    } else if (
      (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') &&
      statement.id
    ) {
      names.add(statement.id.name);
    }
  }
}

/** Whether a statement under `parent` stands in a statement list (not as a lone body). */
export function isStatementListMember(parent: AnyNode | undefined): boolean {
  return (
    parent === undefined ||
    parent.type === 'Program' ||
    parent.type === 'BlockStatement' ||
    parent.type === 'StaticBlock' ||
    parent.type === 'SwitchCase'
  );
}
