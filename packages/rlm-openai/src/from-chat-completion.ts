import type { GenerateResult, StopReason, ToolCall } from '@rlm/core';
import { MalformedCompletionError } from './malformed-completion-error.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function toStopReason(finishReason: unknown): StopReason {
  switch (finishReason) {
    case 'stop':
      return 'end';
    case 'length':
      return 'max-tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool-call';
    default:
      return 'other';
  }
}

function toToolCall(call: unknown, index: number): ToolCall {
  if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== 'string') {
    throw new MalformedCompletionError(`tool call ${index} has no function name`);
  }
  const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`;
  const name = call.function.name;
  const text = typeof call.function.arguments === 'string' ? call.function.arguments : '';
  if (text.trim() === '') return { id, name, input: {} };
  try {
    return { id, name, input: JSON.parse(text) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { id, name, input: undefined, inputError: `the arguments are not JSON (${why})` };
  }
}

/**
 * Reads a Chat Completions body (any JSON the server sent) as a `GenerateResult`: the first
 * choice's text and tool calls, its finish reason, and usage where `inputTokens` excludes
 * the prompt tokens read from the cache (`prompt_tokens_details.cached_tokens`), which are
 * `cacheReadTokens`. A server that reports no usage gets zeros.
 *
 * @throws {MalformedCompletionError} when the body has no choice with a message.
 */
export function fromChatCompletion(body: unknown): GenerateResult {
  if (!isObject(body)) throw new MalformedCompletionError('the body is not a JSON object');
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) {
    throw new MalformedCompletionError('no choice with a message');
  }
  const { message } = choice;
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.map(toToolCall) : [];
  const usage = isObject(body.usage) ? body.usage : {};
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const promptTokens = count(usage.prompt_tokens);
  const cached = Math.min(count(details.cached_tokens), promptTokens);
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls,
    stopReason:
      toolCalls.length > 0 && choice.finish_reason === 'stop'
        ? 'tool-call'
        : toStopReason(choice.finish_reason),
    usage: {
      inputTokens: promptTokens - cached,
      outputTokens: count(usage.completion_tokens),
      ...(isObject(usage.prompt_tokens_details) ? { cacheReadTokens: cached } : {}),
    },
  };
}
