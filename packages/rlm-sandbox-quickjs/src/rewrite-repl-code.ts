import {
  assignedUndeclaredNames,
  childNodes,
  functionTypes,
  lastExpressionStatement,
  patternNames,
} from '@rlm/repl-transform';
import { type Node, type Pattern, type Program, parse } from 'acorn';

/** The result of {@link rewriteReplCode}. */
export interface ReplRewrite {
  /**
   * A script whose completion value is a promise (an async function, called) that resolves to
   * `{ v }` (the value of a last expression statement) or `undefined`. The code inside runs in
   * strict mode; the wrapper keeps the lines of the original on line 1 onwards.
   */
  readonly source: string;
  /**
   * Names that become globals: top-level declarations and plain assignments to names no block
   * declares, outside functions. They must exist (as writable globals) before the code runs.
   */
  readonly globals: readonly string[];
  /**
   * Every name the code uses (in functions too), besides property names: a superset of the
   * variables it reads, writes or declares.
   */
  readonly names: ReadonlySet<string>;
  /** The names used inside functions: a function made now may use them whenever it runs. */
  readonly captured: ReadonlySet<string>;
  /** It names `eval`, `Function` or `globalThis`, and so may reach any variable. */
  readonly reachesDynamically: boolean;
  /** Like `reachesDynamically`, inside a function. */
  readonly capturesDynamically: boolean;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

type AnyNode = Node & Record<string, unknown>;

/** Names through which code reaches variables it does not name. */
const dynamicNames = new Set(['eval', 'Function', 'globalThis']);

interface UsedNames {
  readonly names: Set<string>;
  readonly captured: Set<string>;
}

/**
 * Collects the identifiers `node` uses, besides property names and labels (declared names
 * count too: a superset is what the caller needs); those inside functions also go to
 * `captured`.
 */
function collectUsedNames(node: AnyNode, inFunction: boolean, into: UsedNames): void {
  if (node.type === 'Identifier') {
    const name = node.name as string;
    into.names.add(name);
    if (inFunction) into.captured.add(name);
    return;
  }
  const nested = inFunction || functionTypes.has(node.type);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'label') continue;
    if (key === 'property' && node.type === 'MemberExpression' && !node.computed) continue;
    if (
      key === 'key' &&
      !node.computed &&
      (node.type === 'Property' ||
        node.type === 'MethodDefinition' ||
        node.type === 'PropertyDefinition')
    ) {
      continue;
    }
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item && typeof item === 'object' && typeof (item as AnyNode).type === 'string') {
        collectUsedNames(item as AnyNode, nested, into);
      }
    }
  }
}

/** The declarators of a `var` with an initialiser, as assignments. */
function varAssignments(declaration: AnyNode, code: string, names: string[]): string[] {
  const parts: string[] = [];
  for (const declarator of declaration.declarations as AnyNode[]) {
    const id = declarator.id as Pattern & { start: number; end: number };
    patternNames(id, names);
    const init = declarator.init as AnyNode | null;
    if (init) parts.push(`${code.slice(id.start, id.end)} = (${code.slice(init.start, init.end)})`);
  }
  return parts;
}

/**
 * `var` declarations in blocks outside functions belong to the top level too: they become
 * assignments to globals (a statement, a `for` initialiser, or a `for...in`/`for...of` target).
 */
function rewriteNestedVars(node: AnyNode, code: string, edits: Edit[], names: string[]): void {
  if (functionTypes.has(node.type) || node.type === 'StaticBlock') return;
  const isVar = (child: unknown): child is AnyNode =>
    !!child &&
    (child as AnyNode).type === 'VariableDeclaration' &&
    (child as AnyNode).kind === 'var';
  let skip: AnyNode | undefined;
  if (node.type === 'ForStatement' && isVar(node.init)) {
    skip = node.init;
    edits.push({
      start: skip.start,
      end: skip.end,
      text: varAssignments(skip, code, names).join(', '),
    });
  } else if (
    (node.type === 'ForInStatement' || node.type === 'ForOfStatement') &&
    isVar(node.left)
  ) {
    skip = node.left;
    const id = (skip.declarations as AnyNode[])[0]!.id as Pattern & { start: number; end: number };
    patternNames(id, names);
    edits.push({ start: skip.start, end: skip.end, text: code.slice(id.start, id.end) });
  } else if (isVar(node)) {
    const parts = varAssignments(node, code, names);
    edits.push({
      start: node.start,
      end: node.end,
      text: parts.length === 0 ? 'void 0;' : `void (${parts.join(', ')});`,
    });
    return;
  }
  for (const child of childNodes(node as never) as AnyNode[]) {
    if (child !== skip) rewriteNestedVars(child, code, edits, names);
  }
}

/**
 * Rewrites REPL code for one QuickJS execution: top-level `var`/`let`/`const`/`class`
 * declarations become assignments to globals (so they persist), top-level function
 * declarations are copied to globals, a last expression statement becomes the resolved value,
 * and the whole runs inside a strict async function so that `await` works at the top level.
 *
 * @throws SyntaxError when the code does not parse.
 */
export function rewriteReplCode(code: string): ReplRewrite {
  const program = parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'script',
    allowAwaitOutsideFunction: true,
  }) as Program;
  const edits: Edit[] = [];
  const declared: string[] = [];
  const functionNames: string[] = [];
  const body = program.body as unknown as AnyNode[];
  const last = lastExpressionStatement(program) as AnyNode | undefined;
  for (const statement of body) {
    if (statement.type === 'VariableDeclaration') {
      const parts: string[] = [];
      for (const declarator of statement.declarations as AnyNode[]) {
        const id = declarator.id as Pattern & { start: number; end: number };
        patternNames(id, declared);
        const init = declarator.init as AnyNode | null;
        const target = code.slice(id.start, id.end);
        // `var x;` keeps the value x has; `let x;` starts it over.
        if (init || statement.kind !== 'var') {
          parts.push(`${target} = ${init ? `(${code.slice(init.start, init.end)})` : 'undefined'}`);
        }
      }
      edits.push({
        start: statement.start,
        end: statement.end,
        text: parts.length === 0 ? ';' : `;(${parts.join(', ')});`,
      });
    } else if (statement.type === 'ClassDeclaration') {
      const name = (statement.id as { name: string }).name;
      declared.push(name);
      edits.push({
        start: statement.start,
        end: statement.end,
        text: `;(${name} = ${code.slice(statement.start, statement.end)});`,
      });
    } else if (statement.type === 'FunctionDeclaration') {
      const name = (statement.id as { name: string }).name;
      declared.push(name);
      functionNames.push(name);
    } else if (statement === last) {
      const expression = statement.expression as AnyNode;
      edits.push({
        start: statement.start,
        end: statement.end,
        text: `return { __proto__: null, v: (${code.slice(expression.start, expression.end)}) };`,
      });
    }
  }
  for (const statement of body) {
    if (statement.type !== 'VariableDeclaration')
      rewriteNestedVars(statement, code, edits, declared);
  }
  edits.sort((first, second) => first.start - second.start);
  const assigned = assignedUndeclaredNames(program);
  let rewritten = '';
  let position = 0;
  for (const edit of edits) {
    rewritten += code.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  rewritten += code.slice(position);
  const prologue = functionNames.map((name) => `globalThis.${name} = ${name};`).join(' ');
  const source = `(async function () { 'use strict'; ${prologue}${rewritten}\n})()`;
  const used: UsedNames = { names: new Set(), captured: new Set() };
  for (const statement of body) collectUsedNames(statement, false, used);
  const dynamic = (names: ReadonlySet<string>) => [...dynamicNames].some((name) => names.has(name));
  return {
    source,
    globals: [...new Set([...declared, ...assigned])],
    names: used.names,
    captured: used.captured,
    reachesDynamically: dynamic(used.names),
    capturesDynamically: dynamic(used.captured),
  };
}
