import type Anthropic from '@anthropic-ai/sdk';
import {
  ModelCallError,
  type GenerateRequest,
  type Message,
  type ToolChoice,
  type ToolDefinition,
  emptyContentPlaceholder,
  type NormalizedMessage,
  normalizeConversation,
} from '@rlm/core';

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

/** Most blocks with `cache_control` the Messages API accepts in one request. */
export const maxCacheBreakpoints = 4;

/** User messages, newest first, whose last block gets a breakpoint. */
const userBreakpoints = 2;

type CacheableBlock = { cache_control?: Anthropic.CacheControlEphemeral | null };

/**
 * Marks a request's stable prefix for the Messages API's prompt cache, so each step of a loop
 * reads the earlier steps from the cache: `cache_control` on the last tool (the tools), the
 * system prompt (as one text block), and the last block of the two newest user messages (the
 * newest one writes this step's prefix; the one before it is where the previous step wrote,
 * so it is read). Never more than {@link maxCacheBreakpoints}. Returns a new body; the input
 * is not changed. A prefix shorter than the model's minimum is simply not cached by the API.
 */
export function withCacheBreakpoints(
  body: Anthropic.MessageCreateParamsNonStreaming,
): Anthropic.MessageCreateParamsNonStreaming {
  const ephemeral: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };
  let left = maxCacheBreakpoints;
  const mark = <Block extends object>(block: Block): Block & CacheableBlock => {
    if (left === 0) return block;
    left -= 1;
    return { ...block, cache_control: ephemeral };
  };
  const tools = body.tools?.map((tool, index, all) =>
    index === all.length - 1 ? mark(tool as Anthropic.Tool) : tool,
  );
  const system =
    typeof body.system === 'string'
      ? [mark({ type: 'text' as const, text: body.system })]
      : body.system;
  const marked = new Set<number>();
  for (
    let index = body.messages.length - 1;
    index >= 0 && marked.size < userBreakpoints;
    index -= 1
  ) {
    if (body.messages[index]!.role === 'user') marked.add(index);
  }
  const messages = body.messages.map((message, index) => {
    if (!marked.has(index)) return message;
    const content: Anthropic.ContentBlockParam[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : [...message.content];
    const last = content.at(-1);
    if (!last) return message;
    content[content.length - 1] = mark(last as Anthropic.TextBlockParam);
    return { ...message, content } as Anthropic.MessageParam;
  });
  return {
    ...body,
    ...(tools ? { tools } : {}),
    ...(system ? { system } : {}),
    messages,
  };
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
      `@rlm/anthropic: toolChoice names the tool '${choice.tool}', which is not among the request's tools; add it to tools or choose 'auto'`,
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
