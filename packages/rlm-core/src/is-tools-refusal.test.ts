import { describe, expect, test } from 'vitest';
import { isToolsRefusal } from './is-tools-refusal.js';

describe('isToolsRefusal', () => {
  test.each([
    'registry.ollama.ai/library/gemma3:1b does not support tools',
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    'tools param requires --jinja flag',
    'Tool use is not supported for this model',
    "This model doesn't support function calling",
  ])('a refusal: %s', (message) => {
    expect(isToolsRefusal(message)).toBe(true);
  });

  test.each([
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.",
    'messages.1.content.0.tool_use.name: String should match pattern',
    "Invalid 'tools[0].function.name': string does not match pattern.",
    'max_tokens: too large for this model',
  ])('not a refusal: %s', (message) => {
    expect(isToolsRefusal(message)).toBe(false);
  });
});
