const functionNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** Whether message content is present: a non-empty string or a non-empty part list. */
function hasContent(content: unknown): boolean {
  if (typeof content === 'string') return content.length > 0;
  return Array.isArray(content) && content.length > 0;
}

function toolViolation(tool: unknown, index: number): string | undefined {
  const where = `tools[${index}]`;
  if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
    return `Invalid '${where}': expected an object with type 'function' and a 'function' object.`;
  }
  const { name, parameters } = tool.function;
  if (typeof name !== 'string' || !functionNamePattern.test(name)) {
    return `Invalid '${where}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
  }
  if (parameters !== undefined && (!isObject(parameters) || parameters.type !== 'object')) {
    return `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"'.`;
  }
  return undefined;
}

function toolCallIds(message: Json, index: number): string[] | string {
  const calls = message.tool_calls;
  if (!Array.isArray(calls) || calls.length === 0) {
    return `Invalid 'messages[${index}].tool_calls': expected a non-empty array.`;
  }
  const ids: string[] = [];
  for (const [position, call] of calls.entries()) {
    const where = `messages[${index}].tool_calls[${position}]`;
    if (
      !isObject(call) ||
      call.type !== 'function' ||
      typeof call.id !== 'string' ||
      call.id === '' ||
      !isObject(call.function) ||
      typeof call.function.name !== 'string' ||
      typeof call.function.arguments !== 'string'
    ) {
      return `Invalid '${where}': expected {id, type: 'function', function: {name, arguments}} with string arguments.`;
    }
    ids.push(call.id);
  }
  return ids;
}

/** Checks the messages in order: roles, content, and tool calls answered by tool messages. */
function messagesViolation(messages: readonly unknown[]): string | undefined {
  /** Tool call ids of the last assistant message that no tool message has answered yet. */
  let unanswered: Set<string> | undefined;
  /** Ids a tool message may answer: those of the assistant message just before the tools. */
  let answerable = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (!isObject(message) || typeof message.role !== 'string' || !roles.has(message.role)) {
      return `Invalid 'messages[${index}].role': expected one of 'system', 'developer', 'user', 'assistant', 'tool'.`;
    }
    const { role } = message;
    if (role !== 'tool' && unanswered && unanswered.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...unanswered].join(', ')}`;
    }
    if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !answerable.has(message.tool_call_id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${index}] answers ${JSON.stringify(message.tool_call_id)}).`;
      }
      if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
        return `Invalid 'messages[${index}].content': expected a string.`;
      }
      unanswered?.delete(message.tool_call_id);
      answerable.delete(message.tool_call_id);
      continue;
    }
    answerable = new Set();
    unanswered = undefined;
    if (role === 'assistant') {
      if (message.tool_calls !== undefined) {
        const ids = toolCallIds(message, index);
        if (typeof ids === 'string') return ids;
        if (new Set(ids).size !== ids.length) {
          return `Invalid 'messages[${index}].tool_calls': duplicate tool call ids.`;
        }
        answerable = new Set(ids);
        unanswered = new Set(ids);
        if (message.content !== null && message.content !== undefined) {
          if (typeof message.content !== 'string' || message.content === '') {
            return `Invalid 'messages[${index}].content': expected a non-empty string or null alongside tool_calls.`;
          }
        }
      } else if (!hasContent(message.content)) {
        return `Invalid 'messages[${index}]': an assistant message must have content or tool_calls.`;
      }
      continue;
    }
    if (!hasContent(message.content)) {
      return `Invalid 'messages[${index}].content': expected a non-empty string or part list.`;
    }
  }
  if (unanswered && unanswered.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...unanswered].join(', ')}`;
  }
  return undefined;
}

function toolChoiceViolation(choice: unknown, toolNames: readonly string[]): string | undefined {
  if (choice === undefined) return undefined;
  if (toolNames.length === 0) {
    return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  }
  if (choice === 'auto' || choice === 'none' || choice === 'required') return undefined;
  if (isObject(choice) && choice.type === 'function' && isObject(choice.function)) {
    const { name } = choice.function;
    if (typeof name === 'string' && toolNames.includes(name)) return undefined;
    return `Invalid value for 'tool_choice': no function named ${JSON.stringify(name)} is among 'tools'.`;
  }
  return "Invalid value for 'tool_choice': expected 'auto', 'none', 'required' or {type: 'function', function: {name}}.";
}

/**
 * What the Chat Completions API would reject in a `POST /chat/completions` body, as its
 * one-line message, or `undefined` when the body is valid: a missing model or messages; a
 * message of an unknown role, or with empty content and no tool calls; an assistant
 * `tool_calls` message not followed by a `tool` message for every id (before any other
 * role); a `tool` message answering no preceding tool call; a function name outside
 * `^[a-zA-Z0-9_-]{1,64}$`, a schema that is not `type: "object"`, a duplicate tool; a
 * `tool_choice` without tools or naming an unknown function; a `max_tokens` or
 * `max_completion_tokens` that is not a positive integer; a `stream` that is not a boolean, or
 * `stream_options` without `stream: true`.
 */
export function findChatRequestViolation(body: unknown): string | undefined {
  if (!isObject(body)) return 'The request body must be a JSON object.';
  if (typeof body.model !== 'string' || body.model === '') {
    return "Missing required parameter: 'model'.";
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "Invalid 'messages': expected a non-empty array.";
  }
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    if (body[field] !== undefined && !isPositiveInteger(body[field])) {
      return `Invalid '${field}': expected a positive integer.`;
    }
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    return "Invalid type for 'stream': expected a boolean.";
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  const names: string[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      return "Invalid 'tools': expected a non-empty array.";
    }
    for (const [index, tool] of body.tools.entries()) {
      const violation = toolViolation(tool, index);
      if (violation) return violation;
      const name = ((tool as Json).function as Json).name as string;
      if (names.includes(name)) return `Invalid 'tools': the function name '${name}' is repeated.`;
      names.push(name);
    }
  }
  return toolChoiceViolation(body.tool_choice, names) ?? messagesViolation(body.messages);
}
