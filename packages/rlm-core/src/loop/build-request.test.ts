import { describe, expect, it } from 'vitest';
import { buildSubmitTool } from '../submit-tool.js';
import { buildRequest, type RequestParts } from './build-request.js';

const parts: RequestParts = {
  systemPrompt: undefined,
  recursion: true,
  codeLanguage: 'repl',
  replHelp: ['- `await store(name, value)`: keep a value.'],
  sections: ['<known_tools>\nnone\n</known_tools>'],
  submitTool: buildSubmitTool(),
  messages: [{ role: 'user', content: 'the query' }],
  historyBudgetChars: 100_000,
};

describe('buildRequest', () => {
  it('puts the features lines in the REPL list and their sections after the prompt', () => {
    const request = buildRequest(parts);
    expect(request.system).toContain('- `await store(name, value)`: keep a value.');
    expect(request.system.endsWith('\n\n<known_tools>\nnone\n</known_tools>')).toBe(true);
    expect(request.tools?.map((tool) => tool.name)).toEqual(['SUBMIT']);
    expect(request.system).toContain('call the SUBMIT tool');
  });

  it('speaks of FINAL(...) without the tool, and keeps a user system prompt', () => {
    const text = buildRequest({ ...parts, submitTool: undefined });
    expect(text.tools).toBeUndefined();
    expect(text.system).toContain('FINAL(your answer)');
    const own = buildRequest({ ...parts, systemPrompt: 'Be brief.' });
    expect(own.system).toBe('Be brief.\n\n<known_tools>\nnone\n</known_tools>');
  });
});
