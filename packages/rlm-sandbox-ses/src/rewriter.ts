/**
 * The walk of the REPL rewrite over the acorn AST: scopes, the resolution of each name an
 * execution uses, and the edits that follow. What each kind of node does is in the visitor
 * tables (`visit-statements.ts`, `visit-expressions.ts`, `visit-functions.ts`).
 */
import type { AnyNode, Identifier, Pattern, VariableDeclaration } from 'acorn';
import { failRewrite } from './fail-rewrite.js';
import { reservedPrefix } from './is-identifier-name.js';
import { collectLexicalNames } from '@rlm/repl-transform';
import {
  cellPrefix,
  type DeclarationKind,
  evalName,
  kitName,
  type NameKind,
  type ReplScope,
} from './rewrite-names.js';
import { SourceEdits } from './source-edits.js';

/** A scope of the code: the names it declares. */
export interface Scope {
  readonly parent: Scope | undefined;
  readonly kind: 'top' | 'function' | 'block';
  readonly names: Set<string>;
}

/** How code uses a name. */
export type Use = 'read' | 'write' | 'create' | 'call' | 'typeof' | 'declare';

/** A reference to a persisted variable, rewritten once the walk knows where it lives. */
interface PersistedReference {
  readonly id: Identifier;
  readonly use: Use;
}

/** What the walk does with a node of one type. */
export type Visitor<T extends AnyNode> = (
  rewriter: Rewriter,
  node: T,
  scope: Scope,
  parent: AnyNode | undefined,
) => void;

/** Handlers by node type; a type without one has its children visited. */
export type VisitorTable = {
  readonly [T in AnyNode['type']]?: Visitor<Extract<AnyNode, { type: T }>>;
};

export class Rewriter {
  readonly edits = new SourceEdits();
  readonly declarations = new Map<string, DeclarationKind>();
  readonly cells = new Set<string>();
  readonly globalReads = new Set<string>();
  readonly assignedFree = new Set<string>();
  readonly topFunctions: string[] = [];
  readonly shorthand = new Set<AnyNode>();
  readonly persistedReferences: PersistedReference[] = [];
  /** Persisted variables named inside functions and classes of this code. */
  readonly captured = new Set<string>();
  /** Functions and classes around the current node; `thisDepth` counts non-arrow ones. */
  functionDepth = 0;
  thisDepth = 0;
  /** The code awaits at top level or reaches variables dynamically (`eval`, `globalThis`...). */
  dynamic = false;
  /** The code reaches variables without naming them (`eval`, `globalThis`, `this`...). */
  reachesDynamically = false;
  /** A function or class of this code reaches variables dynamically. */
  capturesDynamically = false;

  /**
   * @param visitors the handlers by node type (`rewriteVisitors`: statements, expressions and
   *   functions), given rather than imported so that they may use this class.
   */
  constructor(
    readonly code: string,
    readonly scope: ReplScope | undefined,
    readonly visitors: VisitorTable,
  ) {}

  checkReserved(id: Identifier): void {
    if (id.name.startsWith(reservedPrefix)) {
      failRewrite(
        this.code,
        id.start,
        `Names starting with ${reservedPrefix} are reserved by the sandbox`,
      );
    }
  }

  // ---- names ----

  resolve(name: string, scope: Scope): 'local' | 'declared' | NameKind | undefined {
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      if (current.names.has(name)) return current.kind === 'top' ? 'declared' : 'local';
    }
    return this.scope?.kindOf(name);
  }

  cellAccess(name: string): string {
    this.cells.add(name);
    return `${cellPrefix}${name}.v`;
  }

  replaceIdentifier(id: Identifier, text: string): void {
    const replacement = this.shorthand.has(id) ? `${id.name}: ${text}` : text;
    this.edits.replace(id.start, id.end, replacement);
  }

  /** Notes code that reaches variables without naming them. */
  markDynamic(): void {
    this.dynamic = true;
    this.reachesDynamically = true;
    if (this.functionDepth > 0) this.capturesDynamically = true;
  }

  reference(id: Identifier, scope: Scope, use: Use): void {
    this.checkReserved(id);
    const { name } = id;
    if (name === 'eval') {
      this.markDynamic();
      this.replaceIdentifier(id, evalName);
      return;
    }
    if (this.scope === undefined || name === 'arguments') return;
    const resolved = this.resolve(name, scope);
    if (resolved !== 'local' && (name === 'Function' || name === 'globalThis')) this.markDynamic();
    const quoted = JSON.stringify(name);
    switch (resolved) {
      case 'local':
      case 'builtin':
        return;
      case 'declared':
      case 'let':
      case 'const': {
        const isConst =
          resolved === 'declared' ? this.declarations.get(name) === 'const' : resolved === 'const';
        if ((use === 'write' || use === 'create') && isConst) {
          this.replaceIdentifier(id, `${kitName}.constant(${quoted}).v`);
          return;
        }
        this.cells.add(name);
        if (this.functionDepth > 0) this.captured.add(name);
        this.persistedReferences.push({ id, use });
        return;
      }
      case 'protected':
        if (use === 'write' || use === 'create') {
          this.replaceIdentifier(id, `${kitName}.readOnly(${quoted}).v`);
        } else {
          const access = this.cellAccess(name);
          this.replaceIdentifier(id, use === 'call' ? `(0, ${access})` : access);
        }
        return;
      case 'global':
        if (use === 'write' || use === 'create') this.assignedFree.add(name);
        else this.globalReads.add(name);
        return;
      case undefined:
        // Unknown now; it may exist on the global object when this runs. Reads fail with a
        // ReferenceError like plain JavaScript (the Compartment's scope would give undefined).
        // A function naming it will look it up later: if it becomes a variable, keep it in a cell.
        if (this.functionDepth > 0) this.captured.add(name);
        if (use === 'read' || use === 'call') {
          this.replaceIdentifier(id, `(${kitName}.ref(${quoted}))`);
        } else if (use === 'create') {
          // `x = 1` with no declaration, outside functions: a variable that persists, as in
          // Node's REPL (strict mode would throw a ReferenceError).
          this.replaceIdentifier(id, `${kitName}.cell(${quoted}).v`);
        } else if (use === 'write') {
          this.assignedFree.add(name);
        }
        return;
    }
  }

  // ---- scopes ----

  blockScope(parent: Scope, statements: readonly AnyNode[]): Scope {
    const names = new Set<string>();
    collectLexicalNames(statements, names);
    return { parent, kind: 'block', names };
  }

  visitStatements(statements: readonly AnyNode[], scope: Scope, parent: AnyNode): void {
    for (const statement of statements) this.visit(statement, scope, parent);
  }

  // ---- patterns ----

  /** Visits a binding pattern: `onBinding` sees each bound identifier. */
  visitPattern(node: Pattern | null, scope: Scope, onBinding: (id: Identifier) => void): void {
    if (node === null) return;
    switch (node.type) {
      case 'Identifier':
        onBinding(node);
        return;
      case 'ObjectPattern':
        for (const property of node.properties) {
          if (property.type === 'RestElement') {
            this.visitPattern(property.argument, scope, onBinding);
            continue;
          }
          if (property.computed) this.visit(property.key, scope, property);
          if (property.shorthand) {
            const value = property.value;
            this.shorthand.add(value.type === 'AssignmentPattern' ? value.left : value);
          }
          this.visitPattern(property.value, scope, onBinding);
        }
        return;
      case 'ArrayPattern':
        for (const element of node.elements) this.visitPattern(element, scope, onBinding);
        return;
      case 'AssignmentPattern':
        this.visitPattern(node.left, scope, onBinding);
        this.visit(node.right, scope, node);
        return;
      case 'RestElement':
        this.visitPattern(node.argument, scope, onBinding);
        return;
      case 'MemberExpression':
        this.visit(node, scope, undefined);
        return;
    }
  }

  /**
   * Visits an assignment target. `creates`: a plain `=` (or a `for...of/in` head) outside any
   * function, where an undeclared name becomes a variable, as in Node's REPL.
   */
  visitTarget(node: Pattern, scope: Scope, creates = false): void {
    this.visitPattern(node, scope, (id) => this.reference(id, scope, creates ? 'create' : 'write'));
  }

  // ---- declarations ----

  isTopLevel(declaration: VariableDeclaration, scope: Scope): boolean {
    if (this.scope === undefined) return false;
    if (declaration.kind !== 'var') return scope.kind === 'top';
    let current: Scope | undefined = scope;
    while (current && current.kind === 'block') current = current.parent;
    return current?.kind === 'top';
  }

  // ---- the walk ----

  /** Visits `node` with the handler of its type (see `visitors`), or visits its children. */
  visit(node: AnyNode | null | undefined, scope: Scope, parent: AnyNode | undefined): void {
    if (!node) return;
    const handler = this.visitors[node.type] as Visitor<AnyNode> | undefined;
    if (handler) handler(this, node, scope, parent);
    else this.visitChildren(node, scope);
  }

  visitDeclaration(node: VariableDeclaration, scope: Scope): void {
    for (const declarator of node.declarations) {
      this.visitPattern(declarator.id, scope, (id) => this.checkReserved(id));
      this.visit(declarator.init, scope, declarator);
    }
  }

  visitChildren(node: AnyNode, scope: Scope): void {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key === 'start' || key === 'end' || key === 'loc') continue;
      if (Array.isArray(value)) {
        for (const item of value) {
          if (item && typeof item.type === 'string') this.visit(item as AnyNode, scope, node);
        }
      } else if (value && typeof value === 'object' && typeof value.type === 'string') {
        this.visit(value as AnyNode, scope, node);
      }
    }
  }
}
