/**
 * Source rewriting for the sandbox, done on the acorn AST (never with regular expressions over
 * code):
 *
 * - **REPL persistence.** Top-level `var`/`let`/`const`/`function`/`class` declarations (and
 *   destructuring) become writes to per-variable cells, `{ v }` objects that live across
 *   executions. Each execution binds the cells it uses to block-local constants, so a loop over
 *   a persisted variable costs a property access on a local, not a lookup through the
 *   Compartment's scope proxy, and a closure made in one execution sees reassignments made in
 *   later ones (the cell is shared).
 * - **Protected names.** Host functions, `print`, `console` and read-only variables cannot be
 *   redeclared; assignments to them throw a `TypeError`.
 * - **SES source rules.** SES rejects any source containing `import(`, `<!--`, `-->` or
 *   `eval(`, even inside strings. Those sequences are escaped inside strings, templates and
 *   regular expressions, comments holding them are blanked, operators are spaced, method keys
 *   are quoted; a real `import(...)` becomes a call that rejects, and `eval` names the
 *   compartment's evaluator.
 */
import type {
  AnonymousClassDeclaration,
  AnonymousFunctionDeclaration,
  AnyNode,
  ArrowFunctionExpression,
  ClassDeclaration,
  ClassExpression,
  Comment,
  FunctionDeclaration,
  FunctionExpression,
  Identifier,
  Pattern,
  Program,
  Statement,
  Token,
  VariableDeclaration,
} from 'acorn';
import { reservedPrefix } from './is-identifier-name.js';
import { loadedAcorn } from './load-acorn.js';
import { SourceEdits } from './source-edits.js';

/** The lexical the runtime provides to REPL code: cells, checks, the global object. */
export const kitName = reservedPrefix;
/** The lexical naming the compartment's evaluator (what `eval` means in guest code). */
export const evalName = '__rlm_eval';
/** The lexical that a dynamic `import(...)` is rewritten to call. */
export const importName = '__rlm_import';
/** The lexical naming `RegExp`, for regular expression literals rebuilt from strings. */
export const regExpName = '__rlm_RegExp';
/** The source URL of REPL code, which tells its stack frames apart. */
export const replSourceUrl = 'rlm-repl';
/** The name of the function that wraps REPL code, which stack frames show. */
export const wrapperName = `${reservedPrefix}_main`;

const cellPrefix = `${reservedPrefix}_c_`;

/**
 * What a name already means when an execution starts:
 * - `let` / `const`: a persisted variable (a cell),
 * - `protected`: a host function, `print`, `console` or a read-only variable (a cell that guest
 *   code cannot write),
 * - `global`: an own data property of the compartment's global object (`Math`, `JSON`, ...),
 *   bound to a block-local constant when the code never assigns it,
 * - `builtin`: a non-configurable global (`undefined`, `NaN`, `Infinity`), which cannot be
 *   redeclared.
 */
export type NameKind = 'let' | 'const' | 'protected' | 'global' | 'builtin';

/** The names an execution can see. */
export interface ReplScope {
  kindOf(name: string): NameKind | undefined;
  /**
   * True when a function made by an earlier execution may use the variable (it named it, or
   * it used `eval`, `Function` or `globalThis`): the variable must then stay in its cell.
   */
  isCaptured(name: string): boolean;
}

export type DeclarationKind = 'var' | 'let' | 'const' | 'function' | 'class';

export interface ReplRewrite {
  /** Persisted variables that functions made by this code name. */
  readonly captured: ReadonlySet<string>;
  /** Whether functions made by this code use `eval`, `Function` or `globalThis`. */
  readonly capturesDynamically: boolean;
  /**
   * The code to evaluate: an async function, called, that resolves to `{ v }` (the value of a
   * last expression statement) or `undefined`. Lines are kept: the prologue shares line 1.
   */
  readonly source: string;
  /** Top-level names the code declares, which become persisted variables. */
  readonly declarations: ReadonlyMap<string, DeclarationKind>;
  /** Persisted variables and protected names the code names (in functions too). */
  readonly names: ReadonlySet<string>;
  /** Whether the code reaches variables without naming them (`eval`, `Function`, `globalThis`, top-level `this`). */
  readonly reachesDynamically: boolean;
}

const sesPatterns = [
  { pattern: /<!--|-->/, what: 'an HTML comment marker' },
  { pattern: /(^|[^.]|\.\.\.)\bimport(\s*(?:\(|\/[/*]))/, what: 'import(' },
  { pattern: /(^|[^.])\beval(\s*\()/, what: 'eval(' },
];
const literalHazard = /<!--|-->|\bimport(?=\s*(?:\(|\/[/*]))|\beval(?=\s*\()/g;
const hexEscapes: Record<string, string> = {
  '<': '\\x3C',
  '-': '\\x2D',
  i: '\\x69',
  e: '\\x65',
};

interface Scope {
  readonly parent: Scope | undefined;
  readonly kind: 'top' | 'function' | 'block';
  readonly names: Set<string>;
}

type Use = 'read' | 'write' | 'create' | 'call' | 'typeof' | 'declare';

/** A reference to a persisted variable, rewritten once the walk knows where it lives. */
interface PersistedReference {
  readonly id: Identifier;
  readonly use: Use;
}

function lineOf(code: string, position: number): number {
  let line = 1;
  for (let i = 0; i < position && i < code.length; i++) {
    if (code.charCodeAt(i) === 10) line++;
  }
  return line;
}

function fail(code: string, position: number, message: string): never {
  throw new SyntaxError(`${message} (line ${lineOf(code, position)})`);
}

/** Escapes the hazards of `text`, raw string or template content, as its escapes allow. */
function escapeHazards(text: string): string {
  return text.replace(literalHazard, (match, offset: number) => {
    let backslashes = 0;
    while (offset - backslashes - 1 >= 0 && text[offset - backslashes - 1] === '\\') backslashes++;
    const hexEscape = hexEscapes[match[0] as string] as string;
    // An odd run of backslashes already escapes the first character: drop that backslash.
    return backslashes % 2 === 1
      ? `${hexEscape.slice(1)}${match.slice(1)}`
      : hexEscape + match.slice(1);
  });
}

function hasHazard(text: string): boolean {
  literalHazard.lastIndex = 0;
  return literalHazard.test(text);
}

function patternNames(pattern: Pattern | null, names: string[] = []): string[] {
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
function collectVarNames(node: AnyNode | null | undefined, names: Set<string>): void {
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
function collectLexicalNames(statements: readonly AnyNode[], names: Set<string>): void {
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

function isStatementListMember(parent: AnyNode | undefined): boolean {
  return (
    parent === undefined ||
    parent.type === 'Program' ||
    parent.type === 'BlockStatement' ||
    parent.type === 'StaticBlock' ||
    parent.type === 'SwitchCase'
  );
}

class Rewriter {
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

  constructor(
    readonly code: string,
    readonly scope: ReplScope | undefined,
  ) {}

  checkReserved(id: Identifier): void {
    if (id.name.startsWith(reservedPrefix)) {
      fail(
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

  visitFunction(
    node:
      | FunctionDeclaration
      | AnonymousFunctionDeclaration
      | FunctionExpression
      | ArrowFunctionExpression,
    scope: Scope,
  ): void {
    let outer = scope;
    if (node.type === 'FunctionExpression' && node.id) {
      this.checkReserved(node.id);
      outer = { parent: scope, kind: 'block', names: new Set([node.id.name]) };
    } else if (node.id) {
      this.checkReserved(node.id);
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
    this.functionDepth++;
    if (!isArrow) this.thisDepth++;
    for (const param of node.params) {
      this.visitPattern(param, inner, (id) => this.checkReserved(id));
    }
    if (node.body.type === 'BlockStatement') {
      this.visitStatements(node.body.body, inner, node.body);
    } else {
      this.visit(node.body, inner, node);
    }
    this.functionDepth--;
    if (!isArrow) this.thisDepth--;
  }

  visitClass(
    node: ClassDeclaration | AnonymousClassDeclaration | ClassExpression,
    scope: Scope,
  ): void {
    let inner = scope;
    if (node.id) {
      this.checkReserved(node.id);
      inner = { parent: scope, kind: 'block', names: new Set([node.id.name]) };
    }
    this.visit(node.superClass, inner, node);
    // Methods, field initializers and static blocks run later, like functions.
    this.functionDepth++;
    this.thisDepth++;
    for (const element of node.body.body) {
      if (element.type === 'StaticBlock') {
        const names = new Set<string>();
        for (const statement of element.body) collectVarNames(statement, names);
        collectLexicalNames(element.body, names);
        this.visitStatements(element.body, { parent: inner, kind: 'function', names }, element);
        continue;
      }
      if (element.computed) this.visit(element.key, inner, element);
      else this.quoteHazardousKey(element.key, element.type === 'MethodDefinition');
      this.visit(element.value, inner, element);
    }
    this.functionDepth--;
    this.thisDepth--;
  }

  /** `{ import() {} }` and `{ eval() {} }` spell `import(` and `eval(`: quote the key. */
  quoteHazardousKey(key: AnyNode, isMethod: boolean): void {
    if (isMethod && key.type === 'Identifier' && (key.name === 'import' || key.name === 'eval')) {
      this.edits.replace(key.start, key.end, JSON.stringify(key.name));
    }
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

  /** Visits an assignment target: its identifiers are writes. */
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

  /**
   * Rewrites a persisted declaration into assignments to cells. `position` is where the
   * declaration stands: a statement (`;` guards against the previous line running on), a
   * `for (...;` initializer, or a `for (... of/in` target.
   */
  rewriteDeclaration(
    node: VariableDeclaration,
    scope: Scope,
    position: 'statement' | 'nested-statement' | 'for-init' | 'for-target',
  ): void {
    this.edits.replace(
      node.start,
      node.start + node.kind.length,
      position === 'statement' ? ';' : '',
    );
    const bind = (id: Identifier) => {
      this.checkReserved(id);
      this.cells.add(id.name);
      this.persistedReferences.push({ id, use: 'declare' });
    };
    for (const declarator of node.declarations) {
      if (position === 'for-target') {
        this.visitPattern(declarator.id, scope, bind);
        continue;
      }
      if (declarator.init === null || declarator.init === undefined) {
        if (node.kind === 'var') {
          // `var x;` keeps the value x has.
          for (const name of patternNames(declarator.id)) this.cells.add(name);
          this.edits.replace(declarator.start, declarator.end, 'void 0');
          continue;
        }
        this.visitPattern(declarator.id, scope, bind);
        this.edits.insert(declarator.id.end, ' = void 0');
        continue;
      }
      const needsParens = declarator.id.type === 'ObjectPattern';
      if (needsParens) this.edits.insert(declarator.start, '(');
      this.visitPattern(declarator.id, scope, bind);
      this.visit(declarator.init, scope, declarator);
      if (needsParens) this.edits.insert(declarator.end, ')');
    }
  }

  // ---- the walk ----

  visit(node: AnyNode | null | undefined, scope: Scope, parent: AnyNode | undefined): void {
    if (!node) return;
    switch (node.type) {
      case 'Identifier':
        this.reference(node, scope, 'read');
        return;
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration':
        fail(
          this.code,
          node.start,
          'import and export declarations are not available in the sandbox',
        );
        return;
      case 'MetaProperty':
        if (node.meta.name === 'import') {
          fail(this.code, node.start, 'import.meta is not available in the sandbox');
        }
        return;
      case 'ImportExpression':
        this.edits.replace(node.start, node.start + 'import'.length, importName);
        this.visit(node.source, scope, node);
        this.visit(node.options, scope, node);
        return;
      case 'BlockStatement':
        this.visitStatements(node.body, this.blockScope(scope, node.body), node);
        return;
      case 'StaticBlock':
        return;
      case 'SwitchStatement': {
        this.visit(node.discriminant, scope, node);
        const inner = this.blockScope(
          scope,
          node.cases.flatMap((switchCase) => switchCase.consequent),
        );
        for (const switchCase of node.cases) {
          this.visit(switchCase.test, inner, switchCase);
          this.visitStatements(switchCase.consequent, inner, switchCase);
        }
        return;
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement': {
        if (node.type === 'ForOfStatement' && node.await && this.functionDepth === 0) {
          this.dynamic = true;
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
          if (this.isTopLevel(head, inner)) {
            this.rewriteDeclaration(
              head,
              scope,
              node.type === 'ForStatement' ? 'for-init' : 'for-target',
            );
          } else {
            this.visitDeclaration(head, inner);
          }
        } else if (node.type === 'ForStatement') {
          this.visit(head, inner, node);
        } else if (head) {
          this.visitTarget(head as Pattern, inner, this.functionDepth === 0);
        }
        if (node.type === 'ForStatement') {
          this.visit(node.test, inner, node);
          this.visit(node.update, inner, node);
        } else {
          this.visit(node.right, inner, node);
        }
        this.visit(node.body, inner, node);
        return;
      }
      case 'VariableDeclaration':
        if (this.isTopLevel(node, scope)) {
          this.rewriteDeclaration(
            node,
            scope,
            isStatementListMember(parent) ? 'statement' : 'nested-statement',
          );
        } else {
          this.visitDeclaration(node, scope);
        }
        return;
      case 'FunctionDeclaration':
        if (scope.kind === 'top' && this.scope !== undefined && node.id) {
          this.cells.add(node.id.name);
          this.topFunctions.push(node.id.name);
        }
        this.visitFunction(node, scope);
        return;
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        this.visitFunction(node, scope);
        return;
      case 'ClassDeclaration':
        if (scope.kind === 'top' && this.scope !== undefined && node.id) {
          this.edits.insert(node.start, `;${this.cellAccess(node.id.name)} = `);
          this.edits.insert(node.end, ';');
        }
        this.visitClass(node, scope);
        return;
      case 'ClassExpression':
        this.visitClass(node, scope);
        return;
      case 'CatchClause': {
        const names = new Set<string>(patternNames(node.param ?? null));
        collectLexicalNames(node.body.body, names);
        const inner: Scope = { parent: scope, kind: 'block', names };
        this.visitPattern(node.param ?? null, inner, (id) => this.checkReserved(id));
        this.visitStatements(node.body.body, inner, node.body);
        return;
      }
      case 'AssignmentExpression':
        this.visitTarget(node.left, scope, node.operator === '=' && this.functionDepth === 0);
        this.visit(node.right, scope, node);
        return;
      case 'UpdateExpression':
        if (node.argument.type === 'Identifier') this.reference(node.argument, scope, 'write');
        else this.visit(node.argument, scope, node);
        return;
      case 'UnaryExpression':
        if (node.operator === 'typeof' && node.argument.type === 'Identifier') {
          this.reference(node.argument, scope, 'typeof');
        } else {
          this.visit(node.argument, scope, node);
        }
        return;
      case 'CallExpression':
      case 'NewExpression':
        if (node.type === 'CallExpression' && node.callee.type === 'Identifier') {
          this.reference(node.callee, scope, 'call');
        } else {
          this.visit(node.callee, scope, node);
        }
        for (const argument of node.arguments) this.visit(argument, scope, node);
        return;
      case 'TaggedTemplateExpression':
        if (node.tag.type === 'Identifier') this.reference(node.tag, scope, 'call');
        else this.visit(node.tag, scope, node);
        this.visit(node.quasi, scope, node);
        return;
      case 'MemberExpression':
        this.visit(node.object, scope, node);
        if (node.computed) this.visit(node.property, scope, node);
        return;
      case 'Property':
        if (node.computed) this.visit(node.key, scope, node);
        else this.quoteHazardousKey(node.key, node.method || node.kind !== 'init');
        if (node.shorthand && node.value.type === 'Identifier') this.shorthand.add(node.value);
        this.visit(node.value, scope, node);
        return;
      case 'LabeledStatement':
        this.visit(node.body, scope, node);
        return;
      case 'ThisExpression':
        // At top level (or in an arrow there), `this` is the global object.
        if (this.thisDepth === 0) this.markDynamic();
        return;
      case 'AwaitExpression':
        // The host and timers run while the code awaits: variables must be in their cells.
        if (this.functionDepth === 0) this.dynamic = true;
        this.visit(node.argument, scope, node);
        return;
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'PrivateIdentifier':
      case 'Literal':
      case 'TemplateElement':
      case 'Super':
        return;
      default:
        this.visitChildren(node, scope);
    }
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

  // ---- the program ----

  declareTopLevel(program: Program): Scope {
    const positions = new Map<string, number>();
    const declare = (name: string, kind: DeclarationKind, position: number) => {
      if (!this.declarations.has(name)) {
        this.declarations.set(name, kind);
        positions.set(name, position);
      }
    };
    for (const statement of program.body) {
      if (statement.type === 'VariableDeclaration' && statement.kind !== 'var') {
        const { kind } = statement;
        if (kind !== 'let' && kind !== 'const') {
          fail(this.code, statement.start, `${kind} declarations are not supported`);
        }
        for (const declarator of statement.declarations) {
          for (const name of patternNames(declarator.id)) {
            declare(name, kind, declarator.start);
          }
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
    for (const [name, position] of positions) {
      const kind = this.scope?.kindOf(name);
      if (kind === 'protected') {
        fail(
          this.code,
          position,
          `Cannot declare ${name}: the sandbox provides it and it is read-only`,
        );
      }
      if (kind === 'builtin') fail(this.code, position, `Cannot redeclare the built-in ${name}`);
      if (name.startsWith(reservedPrefix)) {
        fail(
          this.code,
          position,
          `Names starting with ${reservedPrefix} are reserved by the sandbox`,
        );
      }
    }
    return { parent: undefined, kind: 'top', names: new Set(this.declarations.keys()) };
  }

  /** Escapes hazards in literals and comments, and spaces operators that spell them. */
  neutralizeTokens(tokens: readonly Token[], comments: readonly Comment[]): void {
    const literalRanges: [number, number][] = [];
    const { tokTypes } = loadedAcorn();
    for (const token of tokens) {
      if (token.type === tokTypes.string || token.type === tokTypes.template) {
        literalRanges.push([token.start, token.end]);
        const text = this.code.slice(token.start, token.end);
        if (hasHazard(text)) this.edits.replace(token.start, token.end, escapeHazards(text));
      } else if (token.type === tokTypes.regexp) {
        literalRanges.push([token.start, token.end]);
        const text = this.code.slice(token.start, token.end);
        if (hasHazard(text)) {
          const { pattern, flags } = (
            token as Token & { value: { pattern: string; flags: string } }
          ).value;
          this.edits.replace(
            token.start,
            token.end,
            `new ${regExpName}(${escapeHazards(JSON.stringify(pattern))}, ${JSON.stringify(flags)})`,
          );
        }
      }
    }
    for (const comment of comments) {
      literalRanges.push([comment.start, comment.end]);
      const text = this.code.slice(comment.start, comment.end);
      if (hasHazard(text)) {
        this.edits.replace(comment.start, comment.end, text.replace(/[^\n\r\u2028\u2029]/g, ' '));
      }
    }
    const inLiteral = (position: number) =>
      literalRanges.some(([start, end]) => position >= start && position < end);
    for (const match of this.code.matchAll(/<!--|-->/g)) {
      if (inLiteral(match.index)) continue;
      // In code these are operators: `a < !--b`, `a-- > b`.
      this.edits.insert(match.index + (match[0] === '<!--' ? 1 : 2), ' ');
    }
  }

  checkResult(source: string): void {
    for (const { pattern, what } of sesPatterns) {
      const match = pattern.exec(source);
      if (match) {
        fail(
          source,
          match.index,
          `The sandbox cannot run code that spells ${what} here; rename or rephrase it`,
        );
      }
    }
  }
}

function parseProgram(
  code: string,
  sourceType: 'module' | 'script',
): { program: Program; tokens: Token[]; comments: Comment[] } {
  const tokens: Token[] = [];
  const comments: Comment[] = [];
  const program = loadedAcorn().parse(code, {
    ecmaVersion: 'latest',
    sourceType,
    allowHashBang: false,
    allowReturnOutsideFunction: false,
    onToken: tokens,
    onComment: comments,
  });
  return { program, tokens, comments };
}

/**
 * Persisted variables this code may keep in block-local bindings while it runs, loaded at the
 * start and written back at the end: fast in loops (a cell holding a non-small number boxes it
 * on every write). Safe only when nothing else can see the variable meanwhile: the code does
 * not await (the host and timers run only then), reaches no variable dynamically, no function
 * of this or an earlier execution names it, and it is not a function or class declaration.
 */
function localizableVariables(rewriter: Rewriter, scope: ReplScope): Set<string> {
  const localized = new Set<string>();
  if (rewriter.dynamic) return localized;
  for (const { id } of rewriter.persistedReferences) {
    const { name } = id;
    const declared = rewriter.declarations.get(name);
    if (declared === 'function' || declared === 'class') continue;
    if (rewriter.captured.has(name) || scope.isCaptured(name)) continue;
    localized.add(name);
  }
  return localized;
}

/**
 * Rewrites one REPL input. Throws a `SyntaxError` (with a line number) when the code does not
 * parse, declares a protected or reserved name, or spells an SES-rejected sequence in a place
 * that cannot be rewritten. Needs the parser: await `loadAcorn()` first.
 */
export function rewriteReplCode(code: string, scope: ReplScope): ReplRewrite {
  // Parsed as a module: strict, with top-level await, like the code will run.
  const { program, tokens, comments } = parseProgram(code, 'module');
  const rewriter = new Rewriter(code, scope);
  const top = rewriter.declareTopLevel(program);
  rewriter.neutralizeTokens(tokens, comments);
  rewriter.visitStatements(program.body, top, program);
  const last = program.body.at(-1) as Statement | undefined;
  if (last?.type === 'ExpressionStatement') {
    // The statement, not its expression: `({ a })` starts before its object literal.
    const end = code[last.end - 1] === ';' ? last.end - 1 : last.end;
    rewriter.edits.insert(last.start, 'return {v: (');
    rewriter.edits.insert(end, ')}');
  }
  const localized = localizableVariables(rewriter, scope);
  for (const { id, use } of rewriter.persistedReferences) {
    if (localized.has(id.name)) continue;
    const access = `${cellPrefix}${id.name}.v`;
    rewriter.replaceIdentifier(id, use === 'call' ? `(0, ${access})` : access);
  }
  const bindings: string[] = [];
  for (const name of [...rewriter.cells].sort()) {
    bindings.push(`${cellPrefix}${name} = ${kitName}.cell(${JSON.stringify(name)})`);
  }
  for (const name of [...rewriter.globalReads].sort()) {
    if (!rewriter.assignedFree.has(name)) bindings.push(`${name} = ${kitName}.g.${name}`);
  }
  const locals = [...localized].sort();
  const prologue = [
    `(async function ${wrapperName}() {`,
    bindings.length > 0 ? `const ${bindings.join(', ')};` : '',
    locals.length > 0
      ? `let ${locals.map((name) => `${name} = ${cellPrefix}${name}.v`).join(', ')}; try {`
      : '',
    ...rewriter.topFunctions.map((name) => `${cellPrefix}${name}.v = ${name};`),
  ].join('');
  const epilogue =
    locals.length > 0
      ? `\n} finally { ${locals.map((name) => `${cellPrefix}${name}.v = ${name};`).join(' ')} }`
      : '';
  const source = `${prologue}${rewriter.edits.apply(code)}${epilogue}\n}).call(this)\n//# sourceURL=${replSourceUrl}\n`;
  rewriter.checkResult(source);
  return {
    source,
    declarations: rewriter.declarations,
    captured: rewriter.captured,
    capturesDynamically: rewriter.capturesDynamically,
    names: rewriter.cells,
    reachesDynamically: rewriter.reachesDynamically,
  };
}

/**
 * Rewrites code given to the sandbox's `eval` or `Function`: only what SES's source rules
 * require (no persistence). Throws a `SyntaxError` like {@link rewriteReplCode}, and needs the
 * parser loaded like it.
 */
export function rewriteEvalCode(code: string): string {
  const { program, tokens, comments } = parseProgram(code, 'script');
  const rewriter = new Rewriter(code, undefined);
  rewriter.neutralizeTokens(tokens, comments);
  const top: Scope = { parent: undefined, kind: 'top', names: new Set() };
  rewriter.visitStatements(program.body, top, program);
  const source = rewriter.edits.apply(code);
  rewriter.checkResult(source);
  return source;
}
