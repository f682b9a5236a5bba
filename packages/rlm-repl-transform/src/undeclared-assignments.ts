import type { AnyNode, Pattern, Program } from 'acorn';
import { childNodes, functionTypes } from './child-nodes.js';
import { collectLexicalNames, patternNames } from './pattern-names.js';

function collect(node: AnyNode, shadowed: ReadonlySet<string>, into: Set<string>): void {
  if (functionTypes.has(node.type)) return;
  const local = new Set<string>();
  if (node.type === 'BlockStatement' || node.type === 'StaticBlock') {
    collectLexicalNames(node.body, local);
  } else if (node.type === 'SwitchStatement') {
    collectLexicalNames(
      node.cases.flatMap((switchCase) => switchCase.consequent),
      local,
    );
  } else if (node.type === 'CatchClause') {
    for (const name of patternNames(node.param ?? null)) local.add(name);
  } else if (
    node.type === 'ForStatement' ||
    node.type === 'ForInStatement' ||
    node.type === 'ForOfStatement'
  ) {
    const head = node.type === 'ForStatement' ? node.init : node.left;
    if (head?.type === 'VariableDeclaration') collectLexicalNames([head], local);
  }
  const scope = local.size === 0 ? shadowed : new Set([...shadowed, ...local]);
  const writes: string[] = [];
  if (node.type === 'AssignmentExpression' && node.operator === '=') {
    patternNames(node.left, writes);
  } else if (
    (node.type === 'ForInStatement' || node.type === 'ForOfStatement') &&
    node.left.type !== 'VariableDeclaration'
  ) {
    patternNames(node.left as Pattern, writes);
  }
  for (const name of writes) if (!scope.has(name)) into.add(name);
  for (const child of childNodes(node)) collect(child, scope, into);
}

/**
 * The REPL's undeclared-assignment rule: the names that plain assignments (`x = 1`, and
 * `for (x of ...)` targets) outside functions write without a block around them declaring
 * the name. In Node's REPL such a name becomes a global that persists; inside functions,
 * strict mode still throws. Names the program declares at its top level are included when
 * assigned: the caller tells them apart.
 */
export function assignedUndeclaredNames(program: Program): Set<string> {
  const names = new Set<string>();
  for (const statement of program.body) collect(statement, new Set(), names);
  return names;
}
