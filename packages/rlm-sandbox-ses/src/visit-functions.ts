/** The REPL rewrite's handlers for functions and classes, whose bodies run later. */
import type {
  AnonymousClassDeclaration,
  AnonymousFunctionDeclaration,
  AnyNode,
  ArrowFunctionExpression,
  ClassDeclaration,
  ClassExpression,
  FunctionDeclaration,
  FunctionExpression,
} from 'acorn';
import { collectLexicalNames, collectVarNames, patternNames } from '@rlm/repl-transform';
import type { Rewriter, Scope, VisitorTable } from './rewriter.js';

export function visitFunction(
  rewriter: Rewriter,
  node:
    | FunctionDeclaration
    | AnonymousFunctionDeclaration
    | FunctionExpression
    | ArrowFunctionExpression,
  scope: Scope,
): void {
  let outer = scope;
  if (node.type === 'FunctionExpression' && node.id) {
    rewriter.checkReserved(node.id);
    outer = { parent: scope, kind: 'block', names: new Set([node.id.name]) };
  } else if (node.id) {
    rewriter.checkReserved(node.id);
  }
  const names = new Set<string>();
  for (const param of node.params) {
    for (const name of patternNames(param)) names.add(name);
  }
  if (node.body.type === 'BlockStatement') {
    collectVarNames(node.body, names);
    collectLexicalNames(node.body.body, names);
  }
  const inner: Scope = { parent: outer, kind: 'function', names };
  const isArrow = node.type === 'ArrowFunctionExpression';
  rewriter.functionDepth++;
  if (!isArrow) rewriter.thisDepth++;
  for (const param of node.params) {
    rewriter.visitPattern(param, inner, (id) => rewriter.checkReserved(id));
  }
  if (node.body.type === 'BlockStatement') {
    rewriter.visitStatements(node.body.body, inner, node.body);
  } else {
    rewriter.visit(node.body, inner, node);
  }
  rewriter.functionDepth--;
  if (!isArrow) rewriter.thisDepth--;
}

export function visitClass(
  rewriter: Rewriter,
  node: ClassDeclaration | AnonymousClassDeclaration | ClassExpression,
  scope: Scope,
): void {
  let inner = scope;
  if (node.id) {
    rewriter.checkReserved(node.id);
    inner = { parent: scope, kind: 'block', names: new Set([node.id.name]) };
  }
  rewriter.visit(node.superClass, inner, node);
  // Methods, field initializers and static blocks run later, like functions.
  rewriter.functionDepth++;
  rewriter.thisDepth++;
  for (const element of node.body.body) {
    if (element.type === 'StaticBlock') {
      const names = new Set<string>();
      for (const statement of element.body) collectVarNames(statement, names);
      collectLexicalNames(element.body, names);
      rewriter.visitStatements(element.body, { parent: inner, kind: 'function', names }, element);
      continue;
    }
    if (element.computed) rewriter.visit(element.key, inner, element);
    else quoteHazardousKey(rewriter, element.key, element.type === 'MethodDefinition');
    rewriter.visit(element.value, inner, element);
  }
  rewriter.functionDepth--;
  rewriter.thisDepth--;
}

/** `{ import() {} }` and `{ eval() {} }` spell `import(` and `eval(`: quote the key. */
export function quoteHazardousKey(rewriter: Rewriter, key: AnyNode, isMethod: boolean): void {
  if (isMethod && key.type === 'Identifier' && (key.name === 'import' || key.name === 'eval')) {
    rewriter.edits.replace(key.start, key.end, JSON.stringify(key.name));
  }
}

export const functionVisitors: VisitorTable = {
  FunctionDeclaration(rewriter, node, scope) {
    if (scope.kind === 'top' && rewriter.scope !== undefined && node.id) {
      rewriter.cells.add(node.id.name);
      rewriter.topFunctions.push(node.id.name);
    }
    visitFunction(rewriter, node, scope);
  },
  FunctionExpression: (rewriter, node, scope) => visitFunction(rewriter, node, scope),
  ArrowFunctionExpression: (rewriter, node, scope) => visitFunction(rewriter, node, scope),
  ClassDeclaration(rewriter, node, scope) {
    if (scope.kind === 'top' && rewriter.scope !== undefined && node.id) {
      rewriter.edits.insert(node.start, `;${rewriter.cellAccess(node.id.name)} = `);
      rewriter.edits.insert(node.end, ';');
    }
    visitClass(rewriter, node, scope);
  },
  ClassExpression: (rewriter, node, scope) => visitClass(rewriter, node, scope),
};
