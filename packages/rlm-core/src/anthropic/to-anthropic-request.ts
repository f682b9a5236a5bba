import type Anthropic from '@anthropic-ai/sdk';
import { ModelCallError } from '../errors/model-call-error.js';
import type { GenerateRequest, Message, ToolChoice, ToolDefinition } from '../language-model.js';

type Block =
  | Anthropic.TextBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;

interface Turn {
  readonly role: 'user' | 'assistant';
  blocks: Block[];
}

/** Stands in for content that would otherwise be empty, which the API rejects. */
export const emptyContentPlaceholder = '(empty)';

const missingResultText = 'No result was recorded for this tool call.';

function isBlank(text: string): boolean {
  return text.trim() === '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toBlocks(message: Message): Block[] {
  if (typeof message.content === 'string') {
    return isBlank(message.content) ? [] : [{ type: 'text', text: message.content }];
  }
  return message.content.flatMap((part): Block[] => {
    if (part.type === 'text') return isBlank(part.text) ? [] : [{ type: 'text', text: part.text }];
    if (part.type === 'tool-call') {
      const { id, name, input } = part.call;
      // An undecodable input (cut off by max_tokens) is replayed as `{}`: the API needs an object.
      return [{ type: 'tool_use', id, name, input: isPlainObject(input) ? input : {} }];
    }
    return [
      {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        content: isBlank(part.content) ? emptyContentPlaceholder : part.content,
        ...(part.isError ? { is_error: true } : {}),
      },
    ];
  });
}

function orphanResultText(block: Anthropic.ToolResultBlockParam): Anthropic.TextBlockParam {
  const content = typeof block.content === 'string' ? block.content : emptyContentPlaceholder;
  const label = block.is_error ? 'error result' : 'result';
  return { type: 'text', text: `Tool ${label} for call ${block.tool_use_id}: ${content}` };
}

/**
 * Rebuilds a user turn so it opens with one `tool_result` for each `tool_use` of the
 * assistant turn before it, in call order: missing results are synthesized as errors;
 * results that answer nothing there (orphans, duplicates) become text.
 */
function pairToolResults(previous: Turn | undefined, user: Turn): Turn {
  const toolUses = (previous?.blocks ?? []).filter(
    (block): block is Anthropic.ToolUseBlockParam => block.type === 'tool_use',
  );
  const results = new Map<string, Anthropic.ToolResultBlockParam>();
  const rest: Block[] = [];
  for (const block of user.blocks) {
    if (block.type !== 'tool_result') {
      rest.push(block);
    } else if (
      toolUses.some((use) => use.id === block.tool_use_id) &&
      !results.has(block.tool_use_id)
    ) {
      results.set(block.tool_use_id, block);
    } else {
      rest.push(orphanResultText(block));
    }
  }
  const answers = toolUses.map(
    (use): Block =>
      results.get(use.id) ?? {
        type: 'tool_result',
        tool_use_id: use.id,
        is_error: true,
        content: missingResultText,
      },
  );
  return { role: 'user', blocks: [...answers, ...rest] };
}

/**
 * Converts our conversation to Messages API messages that the API accepts:
 * - blank text is dropped, and a turn left with nothing says {@link emptyContentPlaceholder};
 * - consecutive messages of one role are merged, and the first message is a user message;
 * - every assistant `tool_use` is answered by a `tool_result` at the start of the next user
 *   message (synthesized as an error when our history has none); results answering nothing
 *   become text;
 * - a trailing assistant message is kept as a prefill, without trailing whitespace (dropped if
 *   it has no content).
 */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const blocks = toBlocks(message);
    const previous = turns.at(-1);
    if (previous?.role === message.role) previous.blocks.push(...blocks);
    else turns.push({ role: message.role, blocks });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', blocks: [] });
  for (const [index, turn] of turns.entries()) {
    if (turn.role === 'user') turns[index] = pairToolResults(turns[index - 1], turn);
  }
  const last = turns.at(-1)!;
  if (last.role === 'assistant') {
    if (last.blocks.some((block) => block.type === 'tool_use')) {
      turns.push(pairToolResults(last, { role: 'user', blocks: [] }));
    } else if (last.blocks.length === 0) {
      turns.pop();
    } else {
      const final = last.blocks.at(-1);
      if (final?.type === 'text')
        last.blocks[last.blocks.length - 1] = { ...final, text: final.text.trimEnd() };
    }
  }
  return turns.map((turn) => ({
    role: turn.role,
    content:
      turn.blocks.length > 0 ? turn.blocks : [{ type: 'text', text: emptyContentPlaceholder }],
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
