export { type ReplRewrite, rewriteReplCode } from './rewrite-repl-code.js';
