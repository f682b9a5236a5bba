import type Anthropic from '@anthropic-ai/sdk';
import type { GenerateResult, StopReason, ToolCall } from '@rlm/core';

const stopReasons: Readonly<Record<string, StopReason>> = {
  end_turn: 'end',
  max_tokens: 'max-tokens',
  tool_use: 'tool-call',
  stop_sequence: 'stop-sequence',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function toToolCall(block: Anthropic.ToolUseBlock, cutOff: boolean): ToolCall {
  const { id, name, input } = block;
  if (cutOff) {
    return {
      id,
      name,
      input: undefined,
      inputError: `the response reached max_tokens while writing this ${name} call, so its input is incomplete; raise maxTokens or ask for a shorter input`,
    };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      id,
      name,
      input: undefined,
      inputError: `the ${name} call's input is ${describe(input)}, not a JSON object`,
    };
  }
  return { id, name, input };
}

/**
 * Maps a Messages API response to our result: text blocks joined, `tool_use` blocks as tool
 * calls, the stop reason, and usage (`input_tokens` is the uncached input; cache reads and
 * writes are their own counts). A
 * `tool_use` that is the last block of a `max_tokens` response was cut off: its `input` is
 * `undefined` and `inputError` says why.
 */
export function fromAnthropicMessage(message: Anthropic.Message): GenerateResult {
  const last = message.content.at(-1);
  const cutOff = message.stop_reason === 'max_tokens';
  const { usage } = message;
  return {
    text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
    toolCalls: message.content.flatMap((block) =>
      block.type === 'tool_use' ? [toToolCall(block, cutOff && block === last)] : [],
    ),
    stopReason: (message.stop_reason && stopReasons[message.stop_reason]) ?? 'other',
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    },
  };
}
