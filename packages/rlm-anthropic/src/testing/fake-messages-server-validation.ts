/**
 * The request rules of the Anthropic Messages API that the fake server enforces. Messages
 * follow the real API's wording where it is known, so a test failure reads like production.
 */

import { countCacheBreakpoints } from './fake-prompt-cache.js';

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const toolUseIdPattern = /^[a-zA-Z0-9_-]+$/;

type JsonObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a `POST /v1/messages` body the way the Messages API does.
 *
 * @returns the first violation as the API's `invalid_request_error` message, or `undefined`
 * when the body is valid.
 */
export function findMessagesRequestViolation(body: unknown): string | undefined {
  if (!isObject(body)) return 'request body must be a JSON object';
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    return 'stream: Input should be a valid boolean';
  }
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
    return 'max_tokens: Input should be a valid integer';
  }
  if (body.max_tokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  return (
    checkSystem(body.system) ??
    checkTools(body.tools) ??
    checkToolChoice(body.tool_choice, body.tools) ??
    checkMessages(body.messages) ??
    checkCacheBreakpoints(body)
  );
}

function checkCacheBreakpoints(body: JsonObject): string | undefined {
  const found = countCacheBreakpoints(body);
  return found > 4
    ? `A maximum of 4 blocks with cache_control may be provided. Found ${found}.`
    : undefined;
}

function checkText(text: unknown, path: string): string | undefined {
  if (typeof text !== 'string') return `${path}.text: Input should be a valid string`;
  if (text === '') return 'messages: text content blocks must be non-empty';
  if (text.trim() === '') return 'messages: text content blocks must contain non-whitespace text';
  return undefined;
}

function checkSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid string or list';
  for (const [index, block] of system.entries()) {
    if (!isObject(block) || block.type !== 'text') {
      return `system.${index}: Input should be a text block`;
    }
    const violation = checkText(block.text, `system.${index}`);
    if (violation) return violation.replace('messages:', 'system:');
  }
  return undefined;
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) =>
    isObject(tool) && typeof tool.name === 'string' ? [tool.name] : [],
  );
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const path = `tools.${index}`;
    if (!isObject(tool)) return `${path}: Input should be an object`;
    if (typeof tool.name !== 'string' || !toolNamePattern.test(tool.name)) {
      return `${path}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    }
    if (seen.has(tool.name)) return 'tools: Tool names must be unique.';
    seen.add(tool.name);
    // A versioned server tool (web_search_..., bash_...) has no input_schema of its own.
    if (tool.type !== undefined && tool.type !== 'custom') continue;
    if (tool.description !== undefined && typeof tool.description !== 'string') {
      return `${path}.description: Input should be a valid string`;
    }
    if (!isObject(tool.input_schema)) return `${path}.input_schema: Field required`;
    if (tool.input_schema.type !== 'object') {
      return `${path}.input_schema.type: Input should be 'object'`;
    }
  }
  return undefined;
}

function checkToolChoice(choice: unknown, tools: unknown): string | undefined {
  if (choice === undefined) return undefined;
  if (!isObject(choice)) return 'tool_choice: Input should be an object';
  const names = toolNames(tools);
  switch (choice.type) {
    case 'auto':
    case 'none':
      return undefined;
    case 'any':
      return names.length === 0
        ? "tool_choice: tool_choice.type 'any' requires at least one tool"
        : undefined;
    case 'tool':
      if (typeof choice.name !== 'string') return 'tool_choice.name: Field required';
      return names.includes(choice.name)
        ? undefined
        : `tool_choice.name: tool '${choice.name}' is not among the request's tools`;
    default:
      return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'";
  }
}

function isEmptyContent(content: unknown): boolean {
  if (content === undefined || content === '') return true;
  if (typeof content === 'string') return content.trim() === '';
  return Array.isArray(content) && content.length === 0;
}

function checkToolResultContent(block: JsonObject, path: string): string | undefined {
  if (block.is_error === true && isEmptyContent(block.content)) {
    return `${path}.tool_result: content cannot be empty if \`is_error\` is true`;
  }
  if (block.content === undefined || typeof block.content === 'string') return undefined;
  if (!Array.isArray(block.content)) {
    return `${path}.tool_result.content: Input should be a valid string or list`;
  }
  for (const [index, inner] of block.content.entries()) {
    if (isObject(inner) && inner.type === 'text') {
      const violation = checkText(inner.text, `${path}.content.${index}`);
      if (violation) return violation;
    }
  }
  return undefined;
}

const userBlockTypes = new Set(['text', 'tool_result', 'image', 'document', 'search_result']);
const assistantBlockTypes = new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']);

function missingResults(index: number, ids: readonly string[]): string {
  return (
    `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately ` +
    `after: ${ids.join(', ')}. Each \`tool_use\` block must have a corresponding ` +
    '`tool_result` block in the next message.'
  );
}

/** State carried from one message to the next while checking a conversation. */
interface Conversation {
  /** `tool_use` ids of the previous assistant message, still to be answered. */
  pendingToolUseIds: string[];
  /** Every `tool_use` id seen so far. */
  readonly toolUseIds: Set<string>;
}

function checkBlock(
  block: unknown,
  path: string,
  role: 'user' | 'assistant',
  state: Conversation,
  answered: Set<string>,
  sawOtherBlock: boolean,
): string | undefined {
  if (!isObject(block) || typeof block.type !== 'string') return `${path}: Input should be a block`;
  const allowed = role === 'user' ? userBlockTypes : assistantBlockTypes;
  if (!allowed.has(block.type)) {
    return `${path}: a '${block.type}' block is not allowed in a ${role} message`;
  }
  if (block.type === 'text') return checkText(block.text, path);
  if (block.type === 'tool_use') {
    if (typeof block.id !== 'string' || !toolUseIdPattern.test(block.id)) {
      return `${path}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
    }
    if (typeof block.name !== 'string' || block.name === '') return `${path}.name: Field required`;
    if (!isObject(block.input)) return `${path}.input: Input should be a valid dictionary`;
    if (state.toolUseIds.has(block.id)) return `${path}: \`tool_use\` ids must be unique`;
    state.toolUseIds.add(block.id);
    return undefined;
  }
  if (block.type === 'tool_result') {
    const id = block.tool_use_id;
    if (typeof id !== 'string' || !state.pendingToolUseIds.includes(id) || answered.has(id)) {
      return (
        `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. ` +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
      );
    }
    if (sawOtherBlock) {
      return `${path}: \`tool_result\` blocks must come first in a user message, before any other content`;
    }
    answered.add(id);
    return checkToolResultContent(block, path);
  }
  return undefined;
}

function checkMessage(
  message: JsonObject,
  index: number,
  isFinal: boolean,
  state: Conversation,
): string | undefined {
  const path = `messages.${index}`;
  const role = message.role as 'user' | 'assistant';
  const content = message.content;
  const mayBeEmpty = isFinal && role === 'assistant';
  if (typeof content === 'string') {
    if (content === '' && !mayBeEmpty) {
      return `${path}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (content !== '' && content.trim() === '' && !mayBeEmpty) {
      return 'messages: text content blocks must contain non-whitespace text';
    }
  } else if (Array.isArray(content)) {
    if (content.length === 0 && !mayBeEmpty) {
      return `${path}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const answered = new Set<string>();
    let sawOtherBlock = false;
    for (const [blockIndex, block] of content.entries()) {
      const blockPath = `${path}.content.${blockIndex}`;
      const violation = checkBlock(block, blockPath, role, state, answered, sawOtherBlock);
      if (violation) return violation;
      if (!isObject(block) || block.type !== 'tool_result') sawOtherBlock = true;
    }
    if (role === 'user') {
      const unanswered = state.pendingToolUseIds.filter((id) => !answered.has(id));
      if (unanswered.length > 0) return missingResults(index - 1, unanswered);
    }
  } else {
    return `${path}.content: Input should be a valid string or list`;
  }
  if (role === 'user' && typeof content === 'string' && state.pendingToolUseIds.length > 0) {
    return missingResults(index - 1, state.pendingToolUseIds);
  }
  state.pendingToolUseIds =
    role === 'assistant' && Array.isArray(content)
      ? content.flatMap((block) =>
          isObject(block) && block.type === 'tool_use' && typeof block.id === 'string'
            ? [block.id]
            : [],
        )
      : [];
  if (mayBeEmpty) return checkFinalAssistant(content, index, state);
  return undefined;
}

function checkFinalAssistant(
  content: unknown,
  index: number,
  state: Conversation,
): string | undefined {
  if (state.pendingToolUseIds.length > 0) return missingResults(index, state.pendingToolUseIds);
  const last = Array.isArray(content) ? content.at(-1) : { type: 'text', text: content };
  if (isObject(last) && last.type === 'text' && typeof last.text === 'string') {
    if (last.text !== last.text.trimEnd()) {
      return 'messages: final assistant content cannot end with trailing whitespace';
    }
  }
  return undefined;
}

function checkMessages(messages: unknown): string | undefined {
  if (messages === undefined) return 'messages: Field required';
  if (!Array.isArray(messages)) return 'messages: Input should be a valid list';
  if (messages.length === 0) return 'messages: at least one message is required';
  const state: Conversation = { pendingToolUseIds: [], toolUseIds: new Set() };
  let previousRole: unknown;
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${index}: Input should be an object`;
    const role = message.role;
    if (role !== 'user' && role !== 'assistant') {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    if (index === 0 && role !== 'user') return 'messages: first message must use the "user" role';
    if (role === previousRole) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`;
    }
    previousRole = role;
    const violation = checkMessage(message, index, index === messages.length - 1, state);
    if (violation) return violation;
  }
  return undefined;
}
