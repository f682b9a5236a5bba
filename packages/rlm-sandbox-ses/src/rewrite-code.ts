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
 *
 * The walk is in `rewriter.ts`, with a handler table by node type (`visit-*.ts`).
 */
import { lastExpressionStatement } from '@rlm/repl-transform';
import type { Comment, Program, Token } from 'acorn';
import { declareTopLevel } from './declare-top-level.js';
import { loadedAcorn } from './load-acorn.js';
import { Rewriter, type Scope, type VisitorTable } from './rewriter.js';
import {
  cellPrefix,
  kitName,
  type ReplRewrite,
  type ReplScope,
  replSourceUrl,
  wrapperName,
} from './rewrite-names.js';

/** What the walk does, by node type: statements, expressions, functions and classes. */
const rewriteVisitors: VisitorTable = {
  ...statementVisitors,
  ...expressionVisitors,
  ...functionVisitors,
};
import { checkSesSourceRules, neutralizeTokens } from './ses-source-rules.js';
import { expressionVisitors } from './visit-expressions.js';
import { functionVisitors } from './visit-functions.js';
import { statementVisitors } from './visit-statements.js';

export {
  type DeclarationKind,
  evalName,
  importName,
  kitName,
  type NameKind,
  type ReplRewrite,
  type ReplScope,
  regExpName,
  replSourceUrl,
  wrapperName,
} from './rewrite-names.js';

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
  const rewriter = new Rewriter(code, scope, rewriteVisitors);
  const top = declareTopLevel(rewriter, program);
  neutralizeTokens(code, rewriter.edits, tokens, comments);
  rewriter.visitStatements(program.body, top, program);
  const last = lastExpressionStatement(program);
  if (last !== undefined) {
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
  checkSesSourceRules(source);
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
  const rewriter = new Rewriter(code, undefined, rewriteVisitors);
  neutralizeTokens(code, rewriter.edits, tokens, comments);
  const top: Scope = { parent: undefined, kind: 'top', names: new Set() };
  rewriter.visitStatements(program.body, top, program);
  const source = rewriter.edits.apply(code);
  checkSesSourceRules(source);
  return source;
}
