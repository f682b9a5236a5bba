/** The REPL rewrite's handlers for expressions: how each names, reads, writes or calls. */
import { failRewrite } from './fail-rewrite.js';
import { importName } from './rewrite-names.js';
import type { VisitorTable } from './rewriter.js';
import { quoteHazardousKey } from './visit-functions.js';

const noOp = () => {};

export const expressionVisitors: VisitorTable = {
  Identifier(rewriter, node, scope) {
    rewriter.reference(node, scope, 'read');
  },
  MetaProperty(rewriter, node) {
    if (node.meta.name === 'import') {
      failRewrite(rewriter.code, node.start, 'import.meta is not available in the sandbox');
    }
  },
  ImportExpression(rewriter, node, scope) {
    rewriter.edits.replace(node.start, node.start + 'import'.length, importName);
    rewriter.visit(node.source, scope, node);
    rewriter.visit(node.options, scope, node);
  },
  AssignmentExpression(rewriter, node, scope) {
    rewriter.visitTarget(node.left, scope, node.operator === '=' && rewriter.functionDepth === 0);
    rewriter.visit(node.right, scope, node);
  },
  UpdateExpression(rewriter, node, scope) {
    if (node.argument.type === 'Identifier') rewriter.reference(node.argument, scope, 'write');
    else rewriter.visit(node.argument, scope, node);
  },
  UnaryExpression(rewriter, node, scope) {
    if (node.operator === 'typeof' && node.argument.type === 'Identifier') {
      rewriter.reference(node.argument, scope, 'typeof');
    } else {
      rewriter.visit(node.argument, scope, node);
    }
  },
  CallExpression(rewriter, node, scope) {
    if (node.callee.type === 'Identifier') rewriter.reference(node.callee, scope, 'call');
    else rewriter.visit(node.callee, scope, node);
    for (const argument of node.arguments) rewriter.visit(argument, scope, node);
  },
  NewExpression(rewriter, node, scope) {
    rewriter.visit(node.callee, scope, node);
    for (const argument of node.arguments) rewriter.visit(argument, scope, node);
  },
  TaggedTemplateExpression(rewriter, node, scope) {
    if (node.tag.type === 'Identifier') rewriter.reference(node.tag, scope, 'call');
    else rewriter.visit(node.tag, scope, node);
    rewriter.visit(node.quasi, scope, node);
  },
  MemberExpression(rewriter, node, scope) {
    rewriter.visit(node.object, scope, node);
    if (node.computed) rewriter.visit(node.property, scope, node);
  },
  Property(rewriter, node, scope) {
    if (node.computed) rewriter.visit(node.key, scope, node);
    else quoteHazardousKey(rewriter, node.key, node.method || node.kind !== 'init');
    if (node.shorthand && node.value.type === 'Identifier') rewriter.shorthand.add(node.value);
    rewriter.visit(node.value, scope, node);
  },
  ThisExpression(rewriter) {
    // At top level (or in an arrow there), `this` is the global object.
    if (rewriter.thisDepth === 0) rewriter.markDynamic();
  },
  AwaitExpression(rewriter, node, scope) {
    // The host and timers run while the code awaits: variables must be in their cells.
    if (rewriter.functionDepth === 0) rewriter.dynamic = true;
    rewriter.visit(node.argument, scope, node);
  },
  PrivateIdentifier: noOp,
  Literal: noOp,
  TemplateElement: noOp,
  Super: noOp,
};
