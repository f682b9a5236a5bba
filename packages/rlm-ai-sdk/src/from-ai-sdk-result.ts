import type {
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2Usage,
} from '@ai-sdk/provider';
import type { GenerateResult, StopReason, ToolCall } from '@rlm/core';

function toStopReason(reason: LanguageModelV2FinishReason): StopReason {
  switch (reason) {
    case 'stop':
      return 'end';
    case 'length':
      return 'max-tokens';
    case 'tool-calls':
      return 'tool-call';
    default:
      return 'other';
  }
}

function toToolCall(part: Extract<LanguageModelV2Content, { type: 'tool-call' }>): ToolCall {
  const { toolCallId: id, toolName: name, input } = part;
  if (input.trim() === '') return { id, name, input: {} };
  try {
    return { id, name, input: JSON.parse(input) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { id, name, input: undefined, inputError: `the tool input is not JSON (${why})` };
  }
}

function count(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Reads an AI SDK `doGenerate` result as a `GenerateResult`: text parts joined, tool calls
 * (not those the provider executed) with their JSON input decoded, the finish reason, and
 * usage. `cachedInputTokens` become `cacheReadTokens`; when `inputIncludesCached` they are
 * taken out of `inputTokens` (OpenAI-style counts), else `inputTokens` is kept (Anthropic's
 * counts already leave cache reads out).
 */
export function fromAISDKResult(
  result: {
    readonly content: readonly LanguageModelV2Content[];
    readonly finishReason: LanguageModelV2FinishReason;
    readonly usage: LanguageModelV2Usage;
  },
  inputIncludesCached: boolean,
): GenerateResult {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const toolCalls = result.content.flatMap((part) =>
    part.type === 'tool-call' && !part.providerExecuted ? [toToolCall(part)] : [],
  );
  const input = count(result.usage.inputTokens);
  const cached = result.usage.cachedInputTokens;
  const cacheRead = Math.min(count(cached), inputIncludesCached ? input : Number.POSITIVE_INFINITY);
  const finish = toStopReason(result.finishReason);
  return {
    text,
    toolCalls,
    stopReason: toolCalls.length > 0 && finish === 'end' ? 'tool-call' : finish,
    usage: {
      inputTokens: inputIncludesCached ? input - cacheRead : input,
      outputTokens: count(result.usage.outputTokens),
      ...(cached === undefined ? {} : { cacheReadTokens: cacheRead }),
    },
  };
}
