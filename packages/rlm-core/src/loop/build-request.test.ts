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
  models: undefined,
};

describe('buildRequest', () => {
  it('puts the features lines in the REPL list and their sections after the prompt', () => {
    const request = buildRequest(parts);
    expect(request.system).toContain('- `await store(name, value)`: keep a value.');
    expect(request.system.endsWith('\n\n<known_tools>\nnone\n</known_tools>')).toBe(true);
    expect(request.tools?.map((tool) => tool.name)).toEqual(['SUBMIT']);
    expect(request.system).toContain('call the SUBMIT tool');
  });

  it('tells how to choose a model: the defaults, the ids allowed and their prices', () => {
    expect(buildRequest(parts).system).not.toContain('{ model }');
    const system = buildRequest({
      ...parts,
      models: {
        plainModel: 'claude-haiku-4-5',
        childModel: 'claude-sonnet-4-5',
        allowed: [
          {
            id: 'claude-haiku-4-5',
            price: {
              inputPerMillionUsd: 1,
              outputPerMillionUsd: 5,
              cacheReadPerMillionUsd: 0.1,
              cacheWritePerMillionUsd: 1.25,
            },
          },
          { id: 'my-finetune' },
        ],
      },
    }).system;
    expect(system).toContain('`await llm_query(prompt, { model })`');
    expect(system).toContain(
      'without it, `llm_query` uses claude-haiku-4-5 and a `sub_rlm` child claude-sonnet-4-5.',
    );
    expect(system).toContain(
      '- claude-haiku-4-5: $1 input, $5 output per million tokens\n- my-finetune',
    );
    const open = buildRequest({
      ...parts,
      models: { plainModel: 'a', childModel: 'b', allowed: undefined },
    }).system;
    expect(open).toContain('Any model id of your provider works.');
  });

  it('tells the shape of a batch with failures and that SUBMIT ends the block', () => {
    const { system } = buildRequest(parts);
    expect(system).toContain('its slot holds\n  `{ error, message }`');
    expect(system).toContain('`history.at(-1).steps`');
    expect(system).toContain('that call ends the code block (nothing after it\nruns)');
  });

  it('speaks of FINAL(...) without the tool, and keeps a user system prompt', () => {
    const text = buildRequest({ ...parts, submitTool: undefined });
    expect(text.tools).toBeUndefined();
    expect(text.system).toContain('FINAL(your answer)');
    const own = buildRequest({ ...parts, systemPrompt: 'Be brief.' });
    expect(own.system).toBe('Be brief.\n\n<known_tools>\nnone\n</known_tools>');
  });
});
