import type Anthropic from '@anthropic-ai/sdk';
import { ModelCallError } from '../errors/model-call-error.js';
import type { GenerateRequest, Message, ToolChoice, ToolDefinition } from '../language-model.js';

import {
  emptyContentPlaceholder,
  type NormalizedMessage,
  normalizeConversation,
} from '../normalize-conversation.js';

export { emptyContentPlaceholder };

function isBlank(text: string): boolean {
  return text.trim() === '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Block =
  | Anthropic.TextBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;

function toBlock(part: NormalizedMessage['content'][number]): Block {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'tool-call') {
    const { id, name, input } = part.call;
    // An undecodable input (cut off by max_tokens) is replayed as `{}`: the API needs an object.
    return { type: 'tool_use', id, name, input: isPlainObject(input) ? input : {} };
  }
  return {
    type: 'tool_result',
    tool_use_id: part.toolCallId,
    content: part.content,
    ...(part.isError ? { is_error: true } : {}),
  };
}

/**
 * Converts our conversation to Messages API messages that the API accepts, after core's
 * {@link normalizeConversation} (merged roles, paired tool results, no blank text; a trailing
 * assistant message is kept as a prefill).
 */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  return normalizeConversation(messages).map((message) => ({
    role: message.role,
    content: message.content.map(toBlock),
  }));
}

function toTools(tools: readonly ToolDefinition[]): Anthropic.Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
}

function toToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.tool };
}

/** Defaults a request falls back on. */
export interface AnthropicRequestDefaults {
  /** The Anthropic model id. */
  readonly model: string;
  /** `max_tokens` when the request sets no `maxTokens`. */
  readonly maxTokens: number;
}

/**
 * Builds the Messages API body for one request. Throws a `ModelCallError` when `toolChoice`
 * names a tool that is not among `tools`.
 */
export function toAnthropicRequest(
  request: GenerateRequest,
  defaults: AnthropicRequestDefaults,
): Anthropic.MessageCreateParamsNonStreaming {
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.tool)) {
    throw new ModelCallError(
      `@rlm/core/anthropic: toolChoice names the tool '${choice.tool}', which is not among the request's tools; add it to tools or choose 'auto'`,
    );
  }
  return {
    model: defaults.model,
    max_tokens: request.maxTokens ?? defaults.maxTokens,
    messages: toAnthropicMessages(request.messages),
    ...(isBlank(request.system) ? {} : { system: request.system }),
    ...(tools.length > 0 ? { tools: toTools(tools) } : {}),
    ...(tools.length > 0 && choice !== undefined ? { tool_choice: toToolChoice(choice) } : {}),
  };
}
