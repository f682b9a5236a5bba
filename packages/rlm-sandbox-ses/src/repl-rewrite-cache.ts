/**
 * The REPL rewrites of recent code, reused while the scope answers as it did: after lockdown
 * the parser runs on frozen RegExp intrinsics, and rewriting even `print(1)` takes ~0.1-0.3 ms.
 */
import { type ReplRewrite, type ReplScope, rewriteReplCode } from './rewrite-code.js';
import type { NameKind } from './rewrite-names.js';

/** How many distinct blocks of code the cache keeps (the most recently used). */
const maxCachedRewrites = 16;

/** One question the rewrite asked the scope, and its answer. */
type ScopeAnswer =
  | { readonly ask: 'kindOf'; readonly name: string; readonly answer: NameKind | undefined }
  | { readonly ask: 'isCaptured'; readonly name: string; readonly answer: boolean };

interface CachedRewrite {
  readonly rewrite: ReplRewrite;
  readonly answers: readonly ScopeAnswer[];
}

/**
 * `rewriteReplCode` with its results kept by code: a rewrite depends only on the code and on
 * what it asked the scope, so it is reused when every question it asked gets the same answer
 * now (a name since declared, or since named by a function, rewrites again).
 */
export class ReplRewriteCache {
  readonly #entries = new Map<string, CachedRewrite>();

  rewrite(code: string, scope: ReplScope): ReplRewrite {
    const cached = this.#entries.get(code);
    if (cached !== undefined) {
      this.#entries.delete(code);
      if (cached.answers.every((answer) => answered(scope, answer))) {
        this.#entries.set(code, cached);
        return cached.rewrite;
      }
    }
    const answers: ScopeAnswer[] = [];
    const rewrite = rewriteReplCode(code, {
      kindOf(name) {
        const answer = scope.kindOf(name);
        answers.push({ ask: 'kindOf', name, answer });
        return answer;
      },
      isCaptured(name) {
        const answer = scope.isCaptured(name);
        answers.push({ ask: 'isCaptured', name, answer });
        return answer;
      },
    });
    if (this.#entries.size >= maxCachedRewrites) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(code, { rewrite, answers });
    return rewrite;
  }
}

function answered(scope: ReplScope, { ask, name, answer }: ScopeAnswer): boolean {
  return (ask === 'kindOf' ? scope.kindOf(name) : scope.isCaptured(name)) === answer;
}
