import type { WarningEvent } from '../events.js';
import type { GenerateResult, ToolCall, ToolResultPart } from '../language-model.js';
import { type CodeBlock, parseResponse } from '../parse-response.js';
import { planCodeBlocks } from '../plan-code-blocks.js';
import { buildResponseNotes } from '../prompts.js';
import { readSubmitCall, submitToolName } from '../submit-tool.js';
import { type PendingFinal, pendingFromSubmit, proseFinal } from './final-answer.js';

/** A warning a decision raises; the kernel publishes it as a `warning` event. */
export interface PlanWarning {
  readonly code: WarningEvent['code'];
  readonly message: string;
}

/** What the loop knows when it plans a step. */
export interface PlanContext {
  /** Empty responses in a row before this one. */
  readonly emptyStreak: number;
  /** Empty responses in a row that count as a stall (`stallLimit`). */
  readonly stallLimit: number;
  /** Fence languages that run (`codeLanguages`). */
  readonly codeLanguages: readonly string[];
  /** Code blocks of one response that run at most (`maxCodeBlocksPerResponse`). */
  readonly maxCodeBlocks: number;
}

/** Fields every plan carries. */
interface PlanBase {
  /** Empty responses in a row, this one included (0 when this one had content). */
  readonly emptyStreak: number;
  /** Warnings to publish, in order, before the plan is carried out. */
  readonly warnings: readonly PlanWarning[];
}

/**
 * The decision for one model response:
 * - `stall`: too many empty responses in a row; ask for the final answer now.
 * - `finalize`: the response gave a final answer (a SUBMIT tool call, or FINAL text with no
 *   code); read and check it. `submitCall` is set when the answer came from the SUBMIT tool, so
 *   a rejection goes back as that call's error result.
 * - `execute`: run `blocks` in order; if their code records no final answer, `fallbackFinal`
 *   (a FINAL in the prose) is the answer, else the loop goes on.
 * - `continue`: nothing to run and no answer; tell the model and ask again.
 */
export type StepPlan =
  | (PlanBase & { readonly kind: 'stall' })
  | (PlanBase & {
      readonly kind: 'finalize';
      readonly final: PendingFinal;
      readonly submitCall?: ToolCall;
      /** Results for the response's other tool calls (unknown tools, unreadable SUBMITs). */
      readonly toolResults: readonly ToolResultPart[];
    })
  | (PlanBase & {
      readonly kind: 'execute';
      readonly blocks: readonly CodeBlock[];
      readonly fallbackFinal: PendingFinal | undefined;
      readonly toolResults: readonly ToolResultPart[];
      /** What the model is told about blocks that did not run (cut off, past the limit). */
      readonly notes: readonly string[];
    })
  | (PlanBase & {
      readonly kind: 'continue';
      readonly toolResults: readonly ToolResultPart[];
      readonly notes: readonly string[];
      readonly fallbackFinal?: undefined;
    });

/**
 * PURE: decides what one model response leads to, strongest first (seed 001): a readable
 * SUBMIT tool call finalizes (and any code beside it does not run, with a warning); else code
 * runs; else a `FINAL(...)` / `FINAL_VAR(...)` in the prose finalizes; else the loop continues.
 * Before all of that, an empty response that makes `stallLimit` empty responses in a row is a
 * stall. Other tool calls are answered with error results so the conversation stays valid.
 */
export function planStep(response: GenerateResult, context: PlanContext): StepPlan {
  const empty = response.text.trim().length === 0 && response.toolCalls.length === 0;
  const emptyStreak = empty ? context.emptyStreak + 1 : 0;
  if (emptyStreak >= context.stallLimit) {
    return {
      kind: 'stall',
      emptyStreak,
      warnings: [
        {
          code: 'stall',
          message: `The model answered with nothing ${emptyStreak} times in a row; asking for a final answer now.`,
        },
      ],
    };
  }
  const warnings: PlanWarning[] = [];
  const parsed = parseResponse(response.text, context.codeLanguages);
  const toolResults: ToolResultPart[] = [];
  for (const toolCall of response.toolCalls) {
    if (toolCall.name !== submitToolName) {
      toolResults.push(toolError(toolCall, `Unknown tool ${toolCall.name}: only SUBMIT exists.`));
      continue;
    }
    const submit = readSubmitCall(toolCall);
    if ('problem' in submit) {
      warnings.push({ code: 'submit-unreadable', message: submit.problem });
      toolResults.push(toolError(toolCall, submit.problem));
      continue;
    }
    if (parsed.codeBlocks.length > 0) {
      warnings.push({
        code: 'submit-with-code',
        message: 'The response called SUBMIT and also wrote code: the code was not run.',
      });
    }
    return {
      kind: 'finalize',
      emptyStreak,
      warnings,
      final: pendingFromSubmit(submit, 'submit-tool'),
      submitCall: toolCall,
      toolResults,
    };
  }
  const blocks = planCodeBlocks(parsed.codeBlocks, {
    stopReason: response.stopReason,
    maxBlocks: context.maxCodeBlocks,
  });
  if (blocks.cutOff) {
    warnings.push({
      code: 'response-cut',
      message: blocks.unfinishedDropped
        ? 'The response reached max_tokens inside a code block: that block was not run; the model is told to continue.'
        : 'The response reached max_tokens; the model is told to continue.',
    });
  }
  if (blocks.notRun > 0) {
    warnings.push({
      code: 'code-blocks-not-run',
      message: `The response had ${blocks.run.length + blocks.notRun} code blocks: only the first ${blocks.run.length} ran.`,
    });
  }
  const notes = buildResponseNotes(blocks, context.maxCodeBlocks);
  const fallbackFinal = proseFinal(response.text, context.codeLanguages);
  if (blocks.run.length > 0) {
    return {
      kind: 'execute',
      emptyStreak,
      warnings,
      blocks: blocks.run,
      fallbackFinal,
      toolResults,
      notes,
    };
  }
  if (fallbackFinal) {
    return { kind: 'finalize', emptyStreak, warnings, final: fallbackFinal, toolResults };
  }
  return { kind: 'continue', emptyStreak, warnings, toolResults, notes };
}

/** A tool call's error result. */
export function toolError(toolCall: ToolCall, content: string): ToolResultPart {
  return { type: 'tool-result', toolCallId: toolCall.id, content, isError: true };
}
