import {
  type GenerateRequest,
  type Message,
  ModelCallError,
  type NormalizedMessage,
  normalizeConversation,
  type ToolChoice,
  type ToolDefinition,
} from '@rlm/core';
import type OpenAI from 'openai';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** Which body field carries the output-token bound. */
export type MaxTokensParameter = 'max_tokens' | 'max_completion_tokens';

/** Marks a tool result that reports an error; Chat Completions has no error flag. */
export const toolErrorPrefix = 'Error: ';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function joinText(parts: readonly { type: string; text?: string }[]): string {
  let text: string | undefined;
  for (const part of parts) {
    if (part.type !== 'text' || part.text === undefined) continue;
    text = text === undefined ? part.text : `${text}\n\n${part.text}`;
  }
  return text ?? '';
}

/**
 * One normalized message as Chat Completions messages, pushed onto `into` (a user turn may
 * become several). Plain loops: a long history converts at every step.
 */
function pushChatMessages(message: NormalizedMessage, into: ChatMessage[]): void {
  if (message.role === 'assistant') {
    const text = joinText(message.content);
    const toolCalls: OpenAI.Chat.ChatCompletionMessageToolCall[] = [];
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      toolCalls.push({
        id: part.call.id,
        type: 'function',
        function: {
          name: part.call.name,
          // An undecodable input (cut off by the token limit) is replayed as `{}`.
          arguments: JSON.stringify(isPlainObject(part.call.input) ? part.call.input : {}),
        },
      });
    }
    into.push(
      toolCalls.length === 0
        ? { role: 'assistant', content: text }
        : { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls },
    );
    return;
  }
  for (const part of message.content) {
    if (part.type !== 'tool-result') continue;
    into.push({
      role: 'tool',
      tool_call_id: part.toolCallId,
      content: part.isError ? `${toolErrorPrefix}${part.content}` : part.content,
    });
  }
  const text = joinText(message.content);
  if (text !== '') into.push({ role: 'user', content: text });
}

/**
 * Converts our conversation to Chat Completions messages the API accepts, after core's
 * `normalizeConversation` (merged roles, paired tool results, no blank text): each assistant
 * message with tool calls is followed at once by one `tool` message per call id, in call
 * order, then the user's text (if any) as a `user` message; an assistant message always has
 * text or tool calls. An error result's content starts with {@link toolErrorPrefix}.
 */
export function toChatMessages(system: string, messages: readonly Message[]): ChatMessage[] {
  const chat: ChatMessage[] = system.trim() === '' ? [] : [{ role: 'system', content: system }];
  for (const message of normalizeConversation(messages)) pushChatMessages(message, chat);
  return chat;
}

function toTools(tools: readonly ToolDefinition[]): OpenAI.Chat.ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as OpenAI.FunctionParameters,
    },
  }));
}

function toToolChoice(choice: ToolChoice): OpenAI.Chat.ChatCompletionToolChoiceOption {
  if (choice === 'auto' || choice === 'none') return choice;
  return { type: 'function', function: { name: choice.tool } };
}

/** Defaults a request falls back on. */
export interface ChatRequestDefaults {
  /** The model id the server knows. */
  readonly model: string;
  /** Output-token bound when the request sets none; omitted from the body when undefined. */
  readonly maxTokens: number | undefined;
  /** The body field that carries the bound. */
  readonly maxTokensParameter: MaxTokensParameter;
}

/**
 * Builds the Chat Completions body for one request (the adapter adds `stream` when it
 * streams). Throws a `ModelCallError` when `toolChoice` names a tool that is not among `tools`.
 */
export function toChatRequest(
  request: GenerateRequest,
  defaults: ChatRequestDefaults,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.tool)) {
    throw new ModelCallError(
      `@rlm/openai: toolChoice names the tool '${choice.tool}', which is not among the request's tools; add it to tools or choose 'auto'`,
      { reason: 'invalid-request' },
    );
  }
  const maxTokens = request.maxTokens ?? defaults.maxTokens;
  return {
    model: defaults.model,
    messages: toChatMessages(request.system, request.messages),
    ...(maxTokens === undefined ? {} : { [defaults.maxTokensParameter]: maxTokens }),
    ...(tools.length > 0 ? { tools: toTools(tools) } : {}),
    ...(tools.length > 0 && choice !== undefined ? { tool_choice: toToolChoice(choice) } : {}),
  };
}
