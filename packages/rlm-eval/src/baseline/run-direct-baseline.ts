import { type LanguageModel, ModelCallError, type ModelPrice } from '@rlm/core';
import { callModelOnce } from '../call-model-once.js';
import type { EvalRun } from '../results/eval-result.js';

/** Settings of {@link runDirectBaseline}. */
export interface DirectBaselineSettings {
  /** The model, the same one the RLM's root uses. */
  readonly model: LanguageModel;
  /** The model's input window in tokens (see `findContextWindow`). */
  readonly windowTokens: number;
  /** The model's price, so the baseline's cost is counted. */
  readonly price?: ModelPrice | undefined;
  /** Room kept for the answer, in tokens (default 4,096, or a quarter of a smaller window). */
  readonly maxOutputTokens?: number;
  readonly signal?: AbortSignal | undefined;
}

/** Characters per token assumed when estimating whether a prompt fits: 4, as for English. */
export const charactersPerToken = 4;

/** A context as the text a prompt holds: strings as they are, anything else as JSON. */
export function contextAsText(context: unknown): string {
  if (context === undefined) return '';
  if (typeof context === 'string') return context;
  return JSON.stringify(context) ?? String(context);
}

/** The system prompt of the direct baseline. */
export const directBaselineSystem =
  'Answer the question from the context given with it. Reply with the answer only.';

/**
 * The paper's baseline: the same model answering with the whole context in its prompt, one
 * call. When the prompt (estimated at {@link charactersPerToken} characters a token) plus the
 * room for the answer is larger than `windowTokens`, nothing is sent and the run is
 * `did-not-fit`; an API that refuses the prompt as too long gives `did-not-fit` too. Any other
 * failure is a `failed` run. Never rejects.
 */
export async function runDirectBaseline(
  query: string,
  context: unknown,
  settings: DirectBaselineSettings,
): Promise<EvalRun> {
  const maxOutputTokens =
    settings.maxOutputTokens ?? Math.min(4_096, Math.floor(settings.windowTokens / 4));
  const text = contextAsText(context);
  const prompt = text === '' ? query : `<context>\n${text}\n</context>\n\nQuestion: ${query}`;
  const estimatedTokens = Math.ceil(
    (prompt.length + directBaselineSystem.length) / charactersPerToken,
  );
  const didNotFit = {
    kind: 'did-not-fit' as const,
    estimatedTokens,
    windowTokens: settings.windowTokens,
  };
  if (estimatedTokens + maxOutputTokens > settings.windowTokens) return didNotFit;
  const started = performance.now();
  try {
    const reply = await callModelOnce(
      settings.model,
      {
        system: directBaselineSystem,
        messages: [{ role: 'user', content: prompt }],
        maxTokens: maxOutputTokens,
        singleUse: true,
      },
      { price: settings.price, signal: settings.signal },
    );
    return {
      kind: 'answered',
      answer: reply.text.trim(),
      usage: reply.usage,
      durationMs: Math.round(performance.now() - started),
      steps: 1,
      subCalls: 0,
    };
  } catch (error) {
    if (isPromptTooLong(error)) return didNotFit;
    return {
      kind: 'failed',
      error: {
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
      },
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: 1,
      },
      durationMs: Math.round(performance.now() - started),
      steps: 1,
      subCalls: 0,
    };
  }
}

/** An API's refusal of a prompt longer than the model's window. */
function isPromptTooLong(error: unknown): boolean {
  return (
    ModelCallError.isInstance(error) &&
    error.reason === 'invalid-request' &&
    /prompt is too long|context[ _-]length|context window|maximum context|too many tokens/i.test(
      error.message,
    )
  );
}
