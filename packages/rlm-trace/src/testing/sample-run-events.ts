import type { GenerateRequest, GenerateResult, Message, RlmEvent } from '@rlm/core';

/**
 * The events of a small 2-level run, as the loop emits them: the root calls `llm_query` and
 * `sub_rlm`; the child answers with FINAL after one step; the root submits. Times start at
 * `start` and advance 10 ms per event (a `model-call` event shares the time of the one before it).
 */
export function sampleRunEvents(start = 1_000_000): RlmEvent[] {
  let at = start;
  const tick = () => {
    at += 10;
    return at;
  };
  const root = { callId: 'call-1', depth: 0 };
  const child = { callId: 'call-2', depth: 1 };
  const usage = { inputTokens: 100, outputTokens: 20 };
  const system = 'You answer queries over a context with code.';
  const submitTool = {
    name: 'SUBMIT',
    description: 'Submit the final answer.',
    inputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
  };
  const rootText = 'Let me look.\n```repl\n...\n```';
  const rootFirst: Message[] = [
    { role: 'user', content: 'Context metadata:\n- type: string\n\nQuery: Summarise the notes' },
  ];
  const rootSecond: Message[] = [
    ...rootFirst,
    { role: 'assistant', content: rootText },
    { role: 'user', content: 'cats and dogs' },
  ];
  const answer = (text: string, toolCalls: GenerateResult['toolCalls'] = []): GenerateResult => ({
    text,
    toolCalls,
    stopReason: toolCalls.length > 0 ? 'tool-call' : 'end',
    usage,
  });
  const step = (messages: Message[]): GenerateRequest => ({
    system,
    messages,
    tools: [submitTool],
    toolChoice: 'auto',
  });
  const modelCall = {
    type: 'model-call' as const,
    modelId: 'scripted',
    durationMs: 10,
  };
  return [
    { ...root, at: tick(), type: 'call-start', query: 'Summarise the notes' },
    { ...root, at: tick(), type: 'step-start', iteration: 1 },
    {
      ...root,
      ...modelCall,
      at,
      iteration: 1,
      request: step(rootFirst),
      response: answer(rootText),
    },
    { ...root, at: tick(), type: 'usage', usage, modelId: 'scripted', modelCalls: 1 },
    { ...root, at: tick(), type: 'text', iteration: 1, text: rootText },
    { ...root, at: tick(), type: 'code', iteration: 1, index: 0, code: 'const a = 1;' },
    {
      ...root,
      at: tick(),
      type: 'bridge-call',
      requestId: 'bridge-1',
      name: 'llm_query',
      argumentsExcerpt: 'What is in part 1?',
    },
    {
      ...root,
      ...modelCall,
      at,
      iteration: 1,
      requestId: 'bridge-1',
      request: {
        system: 'Answer the request.',
        messages: [{ role: 'user', content: 'What is in part 1?' }],
        singleUse: true,
      },
      response: answer('Part 1 is about cats.'),
    },
    {
      ...root,
      at: tick(),
      type: 'usage',
      usage: { inputTokens: 30, outputTokens: 5 },
      modelId: 'scripted',
      modelCalls: 2,
      requestId: 'bridge-1',
    },
    {
      ...root,
      at: tick(),
      type: 'bridge-result',
      requestId: 'bridge-1',
      name: 'llm_query',
      ok: true,
      durationMs: 20,
      resultExcerpt: 'Part 1 is about cats.',
    },
    {
      ...root,
      at: tick(),
      type: 'bridge-call',
      requestId: 'bridge-2',
      name: 'sub_rlm',
      argumentsExcerpt: '["Summarise part 2","..."]',
    },
    { ...child, at: tick(), type: 'call-start', query: 'Summarise part 2', parentCallId: 'call-1' },
    { ...child, at: tick(), type: 'step-start', iteration: 1 },
    {
      ...child,
      ...modelCall,
      at,
      iteration: 1,
      request: step([{ role: 'user', content: 'Query: Summarise part 2' }]),
      response: answer('FINAL(Part 2 is about dogs.)'),
    },
    { ...child, at: tick(), type: 'usage', usage, modelId: 'scripted', modelCalls: 3 },
    { ...child, at: tick(), type: 'text', iteration: 1, text: 'FINAL(Part 2 is about dogs.)' },
    {
      ...child,
      at: tick(),
      type: 'final',
      answer: 'Part 2 is about dogs.',
      iterations: 1,
      usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: 3 },
      depthReached: 1,
      durationMs: 30,
      source: 'final-text',
    },
    {
      ...root,
      at: tick(),
      type: 'bridge-result',
      requestId: 'bridge-2',
      name: 'sub_rlm',
      ok: true,
      durationMs: 60,
      resultExcerpt: 'Part 2 is about dogs.',
    },
    {
      ...root,
      at: tick(),
      type: 'execution',
      iteration: 1,
      index: 0,
      output: 'cats and dogs',
      shownToModel: 'cats and dogs',
      durationMs: 100,
    },
    { ...root, at: tick(), type: 'checkpoint', iteration: 1, checkpointId: 'cp-1', durationMs: 3 },
    { ...root, at: tick(), type: 'step-complete', iteration: 1, durationMs: 150 },
    { ...root, at: tick(), type: 'step-start', iteration: 2 },
    {
      ...root,
      ...modelCall,
      at,
      iteration: 2,
      request: step(rootSecond),
      response: answer('', [{ id: 'toolu_1', name: 'SUBMIT', input: { answer: 'cats and dogs' } }]),
    },
    { ...root, at: tick(), type: 'usage', usage, modelId: 'scripted', modelCalls: 4 },
    {
      ...root,
      at: tick(),
      type: 'warning',
      code: 'submit-with-code',
      message: 'SUBMIT and code in one response; the code was ignored',
    },
    {
      ...root,
      at: tick(),
      type: 'final',
      answer: { summary: 'cats and dogs' },
      iterations: 2,
      usage: {
        inputTokens: 330,
        outputTokens: 65,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: 4,
      },
      depthReached: 1,
      durationMs: 220,
      source: 'submit-tool',
    },
  ];
}
