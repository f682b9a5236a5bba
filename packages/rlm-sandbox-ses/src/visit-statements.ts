/** The REPL rewrite's handlers for statements and declarations. */
import type {
  AnyNode,
  ForInStatement,
  ForOfStatement,
  ForStatement,
  Identifier,
  Pattern,
  VariableDeclaration,
} from 'acorn';
import { failRewrite } from './fail-rewrite.js';
import { collectLexicalNames, isStatementListMember, patternNames } from '@rlm/repl-transform';
import type { Rewriter, Scope, Visitor, VisitorTable } from './rewriter.js';

const moduleDeclaration: Visitor<AnyNode> = (rewriter, node) =>
  failRewrite(
    rewriter.code,
    node.start,
    'import and export declarations are not available in the sandbox',
  );

const noOp = () => {};

export const statementVisitors: VisitorTable = {
  ImportDeclaration: moduleDeclaration,
  ExportNamedDeclaration: moduleDeclaration,
  ExportDefaultDeclaration: moduleDeclaration,
  ExportAllDeclaration: moduleDeclaration,
  BlockStatement(rewriter, node, scope) {
    rewriter.visitStatements(node.body, rewriter.blockScope(scope, node.body), node);
  },
  // Visited with its class (see `visitClass`).
  StaticBlock: noOp,
  SwitchStatement(rewriter, node, scope) {
    rewriter.visit(node.discriminant, scope, node);
    const inner = rewriter.blockScope(
      scope,
      node.cases.flatMap((switchCase) => switchCase.consequent),
    );
    for (const switchCase of node.cases) {
      rewriter.visit(switchCase.test, inner, switchCase);
      rewriter.visitStatements(switchCase.consequent, inner, switchCase);
    }
  },
  ForStatement: (rewriter, node, scope) => visitFor(rewriter, node, scope),
  ForInStatement: (rewriter, node, scope) => visitFor(rewriter, node, scope),
  ForOfStatement: (rewriter, node, scope) => visitFor(rewriter, node, scope),
  VariableDeclaration(rewriter, node, scope, parent) {
    if (rewriter.isTopLevel(node, scope)) {
      rewriteDeclaration(
        rewriter,
        node,
        scope,
        isStatementListMember(parent) ? 'statement' : 'nested-statement',
      );
    } else {
      rewriter.visitDeclaration(node, scope);
    }
  },
  CatchClause(rewriter, node, scope) {
    const names = new Set<string>(patternNames(node.param ?? null));
    collectLexicalNames(node.body.body, names);
    const inner: Scope = { parent: scope, kind: 'block', names };
    rewriter.visitPattern(node.param ?? null, inner, (id) => rewriter.checkReserved(id));
    rewriter.visitStatements(node.body.body, inner, node.body);
  },
  LabeledStatement(rewriter, node, scope) {
    rewriter.visit(node.body, scope, node);
  },
  BreakStatement: noOp,
  ContinueStatement: noOp,
};

function visitFor(
  rewriter: Rewriter,
  node: ForStatement | ForInStatement | ForOfStatement,
  scope: Scope,
): void {
  if (node.type === 'ForOfStatement' && node.await && rewriter.functionDepth === 0) {
    rewriter.dynamic = true;
  }
  const head = node.type === 'ForStatement' ? node.init : node.left;
  let inner = scope;
  if (head?.type === 'VariableDeclaration' && head.kind !== 'var') {
    const names = new Set<string>();
    for (const declarator of head.declarations) {
      for (const name of patternNames(declarator.id)) names.add(name);
    }
    inner = { parent: scope, kind: 'block', names };
  }
  if (head?.type === 'VariableDeclaration') {
    if (rewriter.isTopLevel(head, inner)) {
      rewriteDeclaration(
        rewriter,
        head,
        scope,
        node.type === 'ForStatement' ? 'for-init' : 'for-target',
      );
    } else {
      rewriter.visitDeclaration(head, inner);
    }
  } else if (node.type === 'ForStatement') {
    rewriter.visit(head, inner, node);
  } else if (head) {
    rewriter.visitTarget(head as Pattern, inner, rewriter.functionDepth === 0);
  }
  if (node.type === 'ForStatement') {
    rewriter.visit(node.test, inner, node);
    rewriter.visit(node.update, inner, node);
  } else {
    rewriter.visit(node.right, inner, node);
  }
  rewriter.visit(node.body, inner, node);
}

/**
 * Rewrites a persisted declaration into assignments to cells. `position` is where the
 * declaration stands: a statement (`;` guards against the previous line running on), a
 * `for (...;` initializer, or a `for (... of/in` target.
 */
export function rewriteDeclaration(
  rewriter: Rewriter,
  node: VariableDeclaration,
  scope: Scope,
  position: 'statement' | 'nested-statement' | 'for-init' | 'for-target',
): void {
  rewriter.edits.replace(
    node.start,
    node.start + node.kind.length,
    position === 'statement' ? ';' : '',
  );
  const bind = (id: Identifier) => {
    rewriter.checkReserved(id);
    rewriter.cells.add(id.name);
    rewriter.persistedReferences.push({ id, use: 'declare' });
  };
  for (const declarator of node.declarations) {
    if (position === 'for-target') {
      rewriter.visitPattern(declarator.id, scope, bind);
      continue;
    }
    if (declarator.init === null || declarator.init === undefined) {
      if (node.kind === 'var') {
        // `var x;` keeps the value x has.
        for (const name of patternNames(declarator.id)) rewriter.cells.add(name);
        rewriter.edits.replace(declarator.start, declarator.end, 'void 0');
        continue;
      }
      rewriter.visitPattern(declarator.id, scope, bind);
      rewriter.edits.insert(declarator.id.end, ' = void 0');
      continue;
    }
    const needsParens = declarator.id.type === 'ObjectPattern';
    if (needsParens) rewriter.edits.insert(declarator.start, '(');
    rewriter.visitPattern(declarator.id, scope, bind);
    rewriter.visit(declarator.init, scope, declarator);
    if (needsParens) rewriter.edits.insert(declarator.end, ')');
  }
}
