import { describe, expect, test } from 'vitest';
import { UsageError } from '../../usage-error.js';
import { type EvalOptions, parseEvalArguments } from './parse-eval-arguments.js';

const env = {};

function evalOptions(argv: readonly string[]): EvalOptions {
  const command = parseEvalArguments(argv, env);
  if (command.kind !== 'eval') throw new Error(`not an eval: ${command.kind}`);
  return command.options;
}

function usageError(argv: readonly string[]): string {
  try {
    parseEvalArguments(argv, env);
  } catch (error) {
    if (UsageError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('no usage error');
}

describe('parseEvalArguments', () => {
  test('a dataset with the defaults: exact, one variant named rlm, no baseline', () => {
    const options = evalOptions(['data.jsonl']);
    expect(options.batch.jobsFile).toBe('data.jsonl');
    expect(options.batch.concurrency).toBe(4);
    expect(options.scorer).toEqual({ kind: 'built-in', name: 'exact' });
    expect(options.variants.map((variant) => [variant.name, variant.words])).toEqual([['rlm', []]]);
    expect(options.baseline).toBeUndefined();
    expect(options.confidence).toBe(0.95);
  });

  test('variants add their flags to the command’s; the baseline and batch flags are read', () => {
    const options = evalOptions([
      'data.jsonl',
      '--max-iterations',
      '10',
      '--model',
      'anthropic:claude-sonnet-4-5',
      '--variant',
      'i10',
      '--variant=i30=--max-iterations 30',
      '--variant',
      'haiku=--model anthropic:claude-haiku-4-5 --sub-model "anthropic:claude-3-5-haiku"',
      '--baseline',
      'direct',
      '--baseline-window',
      '200k',
      '-o',
      'results.jsonl',
      '--report',
      'report.html',
      '--concurrency',
      '2',
      '--scorer',
      'number',
      '--tolerance',
      '1%',
    ]);
    expect(options.variants.map((variant) => [variant.name, variant.run.maxIterations])).toEqual([
      ['i10', 10],
      ['i30', 30],
      ['haiku', 10],
    ]);
    expect(options.variants[2]!.run.model.modelId).toBe('claude-haiku-4-5');
    expect(options.variants[2]!.run.subModel?.modelId).toBe('claude-3-5-haiku');
    expect(options.variants[0]!.run.model.modelId).toBe('claude-sonnet-4-5');
    expect(options.baseline).toEqual({ windowTokens: 200_000 });
    expect(options.batch.outFile).toBe('results.jsonl');
    expect(options.batch.concurrency).toBe(2);
    expect(options.reportFile).toBe('report.html');
    expect(options.tolerance).toEqual({ absolute: 0, relative: 0.01 });
  });

  test('a variant may choose the per-call models, the error limit and the redaction ratio', () => {
    const options = evalOptions([
      'data.jsonl',
      '--variant',
      'choose=--sub-models claude-haiku-4-5,claude-opus-4-5 --max-errors 3 --redaction-ratio off',
    ]);
    expect(options.variants[0]!.run).toMatchObject({
      subModels: ['claude-haiku-4-5', 'claude-opus-4-5'],
      maxConsecutiveErrors: 3,
      redactionRatio: Number.POSITIVE_INFINITY,
    });
  });

  test('scorers: built-in names, judge with its model, a module path; anything else is refused', () => {
    expect(evalOptions(['d.jsonl', '--scorer', './my-scorer.mjs']).scorer).toEqual({
      kind: 'module',
      file: './my-scorer.mjs',
    });
    const judged = evalOptions([
      'd.jsonl',
      '--scorer',
      'judge',
      '--judge-model',
      'openai:gpt-4.1-mini',
    ]);
    expect(judged.scorer).toEqual({ kind: 'judge' });
    expect(judged.judgeModel).toMatchObject({ provider: 'openai', modelId: 'gpt-4.1-mini' });
    expect(usageError(['d.jsonl', '--scorer', 'fuzzy'])).toBe(
      'unknown scorer "fuzzy": use exact, contains, number, f1, regex, json, judge, or a module path such as ./my-scorer.mjs',
    );
  });

  test('--generate sniah reads its own flags only', () => {
    expect(
      parseEvalArguments(
        ['--generate', 'sniah', '--lengths', '8k,1m', '--n', '3', '-o', 'set'],
        env,
      ),
    ).toEqual({
      kind: 'generate',
      task: 'sniah',
      lengths: [8_000, 1_000_000],
      n: 3,
      seed: 1,
      directory: 'set',
    });
    expect(usageError(['--generate', 'sniah', '--scorer', 'exact'])).toContain(
      '--generate sniah takes only --lengths, --n, --seed and --out <directory> (got --scorer)',
    );
    expect(usageError(['--generate', 'ruler'])).toContain('--generate knows one task, sniah');
    expect(usageError(['d.jsonl', '--lengths', '8k'])).toBe(
      '--lengths only applies to --generate sniah',
    );
  });

  test('usage errors say what to do', () => {
    expect(usageError([])).toMatch(/^rlm eval needs a dataset: /);
    expect(usageError(['d.jsonl', '--json'])).toMatch(/^rlm eval takes no --json: /);
    expect(usageError(['d.jsonl', '--variant', 'x=--context other.txt'])).toMatch(
      /^--variant x sets --context, which a variant cannot change/,
    );
    expect(usageError(['d.jsonl', '--variant', 'a', '--variant', 'a=--max-depth 2'])).toBe(
      'two variants are named a; name each once',
    );
    expect(usageError(['d.jsonl', '--variant', 'direct', '--baseline', 'direct'])).toMatch(
      /clashes with --baseline direct/,
    );
    expect(usageError(['d.jsonl', '--baseline', 'rag'])).toMatch(/--baseline knows one baseline/);
    expect(usageError(['d.jsonl', '--variant', 'x=--max-iterations ten'])).toMatch(
      /--max-iterations/,
    );
    expect(usageError(['d.jsonl', '--confidence', '2'])).toMatch(/--confidence needs a level/);
  });

  test("--queue takes the variants; base URLs stay the workers'", () => {
    const queue = ['--queue', 'redis://127.0.0.1:6379'];
    const options = evalOptions(['d.jsonl', ...queue, '--variant', 'a=--max-iterations 3']);
    expect(options.batch.queue).toBe('redis://127.0.0.1:6379');
    expect(options.variants[0]?.run.maxIterations).toBe(3);
    const routed =
      "with --queue, base URLs are the workers' (variant a has one): each worker reaches a provider at its own --base-url, else ANTHROPIC_BASE_URL or OPENAI_BASE_URL; give it to rlm worker instead";
    expect(
      usageError(['d.jsonl', ...queue, '--variant', 'a=--base-url http://127.0.0.1:8000']),
    ).toBe(routed);
    expect(
      usageError(['d.jsonl', ...queue, '--base-url', 'http://127.0.0.1:8000', '--variant', 'a']),
    ).toBe(routed);
    // Without a queue, a variant may call its own server.
    expect(
      evalOptions(['d.jsonl', '--variant', 'a=--base-url http://127.0.0.1:8000']).variants[0]?.run
        .model.baseURL,
    ).toBe('http://127.0.0.1:8000');
  });

  test('--queue refuses a replay: model, which reads a trace on this machine', () => {
    const queue = ['--queue', 'redis://127.0.0.1:6379'];
    const refused = (name: string) =>
      `with --queue, jobs name their models and workers call them; a replay: reads a trace on this machine (${name} has one): drop --queue to replay it here`;
    expect(usageError(['d.jsonl', ...queue, '--variant', 'a=--model replay:run.jsonl'])).toBe(
      refused('variant a'),
    );
    expect(usageError(['d.jsonl', ...queue, '--variant', 'a=--sub-model replay:run.jsonl'])).toBe(
      refused('variant a'),
    );
    expect(
      usageError(['d.jsonl', ...queue, '--model', 'replay:run.jsonl', '--baseline', 'direct']),
    ).toBe(refused('variant rlm'));
    // Without a queue, a variant replays here.
    expect(
      evalOptions(['d.jsonl', '--variant', 'a=--model replay:run.jsonl']).variants[0]?.run.model,
    ).toMatchObject({ provider: 'replay', modelId: 'run.jsonl' });
  });
});
