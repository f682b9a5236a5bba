export { childNodes, functionTypes } from './child-nodes.js';
export {
  collectLexicalNames,
  collectVarNames,
  isStatementListMember,
  patternNames,
} from './pattern-names.js';
export { lastExpressionStatement } from './last-expression.js';
export {
  type DeclarationKind,
  type TopLevelDeclaration,
  topLevelDeclarations,
} from './top-level-declarations.js';
export { assignedUndeclaredNames } from './undeclared-assignments.js';
export { type ReplCase, replCases } from './repl-cases.js';
export { type ReplCasesApi, type ReplCasesSandbox, runReplCases } from './run-repl-cases.js';
