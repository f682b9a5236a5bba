import { ModelCallError } from '../errors/model-call-error.js';
import type {
  GenerateOptions,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  StopReason,
  ToolCall,
} from '../language-model.js';

/** One scripted response: plain text, or the parts of a result. */
export type ScriptedReply =
  | string
  | {
      readonly text?: string;
      readonly toolCalls?: readonly ToolCall[];
      readonly stopReason?: StopReason;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
      /** Waits this long before answering (honours the abort signal). */
      readonly delayMs?: number;
      /** Rejects with this error instead of answering. */
      readonly error?: Error;
    };

/** A reply, or a function that picks one from the request (for interleaved sub-calls). */
export type ScriptedStep = ScriptedReply | ((request: GenerateRequest) => ScriptedReply);

/** Settings of {@link createScriptedModel}. */
export interface ScriptedModelSettings {
  /** Whether the model claims tool support (the native SUBMIT tool). Default false. */
  readonly supportsTools?: boolean;
  /** Identifier reported as `modelId`. Default `scripted`. */
  readonly modelId?: string;
  /**
   * Answers requests the script has no step left for. Without it, such a request rejects
   * with an error saying the script ran out.
   */
  readonly fallback?: (request: GenerateRequest) => ScriptedReply;
  /**
   * The models `withModel(id)` gives, by id, for per-call model choice. An id not listed gives a
   * model whose every call rejects as a provider does for a model it does not serve
   * (`ModelCallError`, reason `invalid-request`, status 404). Without it the model has no
   * `withModel`.
   */
  readonly otherModels?: Readonly<Record<string, LanguageModel>>;
}

/** A {@link LanguageModel} that replays a script: for tests and offline runs. */
export interface ScriptedModel extends LanguageModel {
  /** Every request received, in order. */
  readonly requests: readonly GenerateRequest[];
}

/**
 * Creates a model that answers each request with the next step of `steps`. Steps are taken in
 * the order requests arrive; use a function step (or `fallback`) to answer by content when
 * calls interleave. Usage defaults to 10 input and 10 output tokens per response.
 */
export function createScriptedModel(
  steps: readonly ScriptedStep[],
  settings: ScriptedModelSettings = {},
): ScriptedModel {
  const requests: GenerateRequest[] = [];
  let next = 0;
  const { otherModels } = settings;
  return {
    modelId: settings.modelId ?? 'scripted',
    supportsTools: settings.supportsTools ?? false,
    requests,
    ...(otherModels ? { withModel: (modelId: string) => otherModel(otherModels, modelId) } : {}),
    async generate(
      request: GenerateRequest,
      options: GenerateOptions = {},
    ): Promise<GenerateResult> {
      options.signal?.throwIfAborted();
      requests.push(request);
      const step = steps[next];
      next += 1;
      let reply: ScriptedReply;
      if (step !== undefined) reply = typeof step === 'function' ? step(request) : step;
      else if (settings.fallback) reply = settings.fallback(request);
      else {
        throw new Error(
          `scripted model: the script has ${steps.length} steps and request ${requests.length} has none`,
        );
      }
      const parts = typeof reply === 'string' ? { text: reply } : reply;
      if (parts.delayMs) await delay(parts.delayMs, options.signal);
      if (parts.error) throw parts.error;
      const toolCalls = parts.toolCalls ?? [];
      return {
        text: parts.text ?? '',
        toolCalls,
        stopReason: parts.stopReason ?? (toolCalls.length > 0 ? 'tool-call' : 'end'),
        usage: { inputTokens: parts.inputTokens ?? 10, outputTokens: parts.outputTokens ?? 10 },
      };
    },
  };
}

function otherModel(
  models: Readonly<Record<string, LanguageModel>>,
  modelId: string,
): LanguageModel {
  if (Object.hasOwn(models, modelId)) return models[modelId]!;
  return {
    modelId,
    supportsTools: false,
    generate: () =>
      Promise.reject(
        new ModelCallError(`scripted model: no model named ${JSON.stringify(modelId)}`, {
          status: 404,
          reason: 'invalid-request',
        }),
      ),
  };
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
