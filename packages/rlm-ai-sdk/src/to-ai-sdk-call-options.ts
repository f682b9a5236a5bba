import type {
  LanguageModelV2CallOptions,
  LanguageModelV2FunctionTool,
  LanguageModelV2Message,
  LanguageModelV2ToolChoice,
} from '@ai-sdk/provider';
import {
  type GenerateRequest,
  type Message,
  ModelCallError,
  normalizeConversation,
  type ToolChoice,
} from '@rlm/core';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Converts our conversation to an AI SDK (spec v2) prompt, after core's
 * `normalizeConversation`: the system prompt first; each assistant message as text and tool-call
 * parts; the results that open the next user message as one `tool` message (an error result as
 * `error-text`), then the user's text, if any, as a `user` message.
 */
export function toAISDKPrompt(
  system: string,
  messages: readonly Message[],
): LanguageModelV2Message[] {
  const prompt: LanguageModelV2Message[] =
    system.trim() === '' ? [] : [{ role: 'system', content: system }];
  const toolNames = new Map<string, string>();
  for (const message of normalizeConversation(messages)) {
    if (message.role === 'assistant') {
      prompt.push({
        role: 'assistant',
        content: message.content.map((part) => {
          if (part.type === 'text') return { type: 'text', text: part.text };
          toolNames.set(part.call.id, part.call.name);
          return {
            type: 'tool-call',
            toolCallId: part.call.id,
            toolName: part.call.name,
            // An undecodable input (cut off by the token limit) is replayed as `{}`.
            input: isPlainObject(part.call.input) ? part.call.input : {},
          };
        }),
      });
      continue;
    }
    const results = message.content.flatMap((part) =>
      part.type === 'tool-result'
        ? [
            {
              type: 'tool-result' as const,
              toolCallId: part.toolCallId,
              toolName: toolNames.get(part.toolCallId) ?? '',
              output: part.isError
                ? { type: 'error-text' as const, value: part.content }
                : { type: 'text' as const, value: part.content },
            },
          ]
        : [],
    );
    const texts = message.content.flatMap((part) =>
      part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : [],
    );
    if (results.length > 0) prompt.push({ role: 'tool', content: results });
    if (texts.length > 0) prompt.push({ role: 'user', content: texts });
  }
  return prompt;
}

function toToolChoice(choice: ToolChoice): LanguageModelV2ToolChoice {
  if (choice === 'auto' || choice === 'none') return { type: choice };
  return { type: 'tool', toolName: choice.tool };
}

/**
 * Builds the AI SDK call options for one request. Throws a `ModelCallError` when `toolChoice`
 * names a tool that is not among `tools`.
 */
export function toAISDKCallOptions(
  request: GenerateRequest,
  defaults: { readonly maxTokens: number | undefined },
): LanguageModelV2CallOptions {
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.tool)) {
    throw new ModelCallError(
      `@rlm/ai-sdk: toolChoice names the tool '${choice.tool}', which is not among the request's tools; add it to tools or choose 'auto'`,
      { reason: 'invalid-request' },
    );
  }
  const maxOutputTokens = request.maxTokens ?? defaults.maxTokens;
  return {
    prompt: toAISDKPrompt(request.system, request.messages),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(tools.length > 0
      ? {
          tools: tools.map(
            (tool): LanguageModelV2FunctionTool => ({
              type: 'function',
              name: tool.name,
              description: tool.description,
              inputSchema: tool.inputSchema as LanguageModelV2FunctionTool['inputSchema'],
            }),
          ),
        }
      : {}),
    ...(tools.length > 0 && choice !== undefined ? { toolChoice: toToolChoice(choice) } : {}),
  };
}
