import { describe, expect, test } from 'vitest';
// Only the package's public entry points: a feature written outside core.
import { createRLM, type Feature, type RlmEvent } from '../index.js';
import { createScriptedModel, createScriptedSandbox } from '../testing/index.js';

/**
 * A feature of the kind a user writes: a `tally(word)` host function that counts words across
 * a run, a prompt section that shows the counts, and a note after each executed step.
 */
function tallyFeature(): Feature & { readonly steps: number[] } {
  const counts = new Map<string, number>();
  const steps: number[] = [];
  return {
    name: 'tally',
    steps,
    hostFunctions: {
      tally: ({ request }) => {
        const [word] = request.args;
        if (typeof word !== 'string' || word.length === 0) {
          throw new Error('tally(word): word must be a non-empty string');
        }
        counts.set(word, (counts.get(word) ?? 0) + 1);
        return counts.get(word);
      },
    },
    replHelp: ['- `await tally(word)`: counts a word; the counts are shown below.'],
    async promptSection() {
      return `Tally: ${[...counts].map(([word, count]) => `${word}=${count}`).join(', ') || '(empty)'}`;
    },
    afterExecutedStep(call) {
      steps.push(call.iteration);
    },
  };
}

describe('a Feature written outside core', () => {
  test('adds a host function, a prompt section and reacts to executed steps in a real loop', async () => {
    const feature = tallyFeature();
    const model = createScriptedModel(['```repl\ncount\n```', '```repl\nbad\n```', 'FINAL(done)']);
    const sandbox = createScriptedSandbox({
      count: async ({ host }) => {
        await host.tally?.('apple');
        return { output: String(await host.tally?.('apple')) };
      },
      bad: async ({ host }) => {
        try {
          await host.tally?.(42);
          return { output: 'accepted' };
        } catch (error) {
          return { output: `caught: ${(error as Error).message}` };
        }
      },
    });
    const rlm = createRLM({ model: model, sandbox, features: [feature] });
    const events: RlmEvent[] = [];
    for await (const event of rlm.queryStream('count apples', 'text')) events.push(event);

    const final = events.find((event) => event.type === 'final');
    expect(final && 'answer' in final ? final.answer : undefined).toBe('done');
    // The host function reached model code and answered both right and wrong arguments.
    const outputs = events.flatMap((event) => (event.type === 'execution' ? [event.output] : []));
    expect(outputs).toEqual(['2', 'caught: tally(word): word must be a non-empty string']);
    // The prompt section and the REPL line are in every request after the first call.
    const systems = model.requests.map((request) => request.system ?? '');
    expect(systems[0]).toContain('`await tally(word)`');
    expect(systems[0]).toContain('Tally: (empty)');
    expect(systems[1]).toContain('Tally: apple=2');
    // The hook ran after each step whose code ran.
    expect(feature.steps).toEqual([1, 2]);
    await rlm.dispose();
  });

  test('a feature may not take a name the core already has', async () => {
    const clash: Feature = { name: 'clash', hostFunctions: { llm_query: () => 'mine' } };
    const rlm = createRLM({
      model: createScriptedModel(['FINAL(x)']),
      sandbox: createScriptedSandbox({}),
      features: [clash],
    });
    await expect(rlm.query('q', 'c')).rejects.toThrow(/llm_query is already taken/);
  });
});
