import type { StopReason } from './language-model.js';
import type { CodeBlock } from './parse-response.js';

/** Which code blocks of one response run, and why the others do not. */
export interface CodeBlockPlan {
  /** The blocks to run, in order. */
  readonly run: readonly CodeBlock[];
  /** The response stopped at the output limit (`max_tokens`). */
  readonly cutOff: boolean;
  /** The last block was unfinished when the response was cut off; it does not run. */
  readonly unfinishedDropped: boolean;
  /** Complete blocks past the per-response limit; they do not run. */
  readonly notRun: number;
}

/**
 * PURE: decides which of a response's code blocks run. A response cut off by the output limit
 * whose last block has no closing fence never runs that block (half a program); of the
 * complete blocks, the first `maxBlocks` run.
 */
export function planCodeBlocks(
  blocks: readonly CodeBlock[],
  options: { readonly stopReason: StopReason; readonly maxBlocks: number },
): CodeBlockPlan {
  const cutOff = options.stopReason === 'max-tokens';
  const unfinishedDropped = cutOff && blocks.length > 0 && !blocks.at(-1)!.closed;
  const complete = unfinishedDropped ? blocks.slice(0, -1) : blocks;
  return {
    run: complete.slice(0, options.maxBlocks),
    cutOff,
    unfinishedDropped,
    notRun: Math.max(0, complete.length - options.maxBlocks),
  };
}
