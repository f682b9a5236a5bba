// Records the example run the repository ships (examples/incidents-run.jsonl): the built `rlm`
// answers the example question over examples/incidents with anthropic:claude-sonnet-5-5, served
// by the fake Messages API of @rlm/anthropic with scripted answers. The recording is a real trace
// of a real run (the real CLI, sandbox and SDK); only the model's words are scripted. Run it again
// (pnpm --filter @rlm/cli record-example) after a change to what the model is sent: the replay
// test (src/bin/rlm-replay.test.ts) fails until then.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the model's code, in strings, holds template literals
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = path.resolve(packageRoot, '../..');
const bin = path.join(packageRoot, 'dist/bin/rlm.js');
const question =
  'Which incidents were caused by an expired certificate, and how long did each last?';
const contextDirectory = path.join(repositoryRoot, 'examples/incidents');
const output = path.join(repositoryRoot, 'examples/incidents-run.jsonl');
const model = 'claude-sonnet-5-5';

/** Runs the built bin; the fake server answers it from this process meanwhile. */
async function rlm(args, options) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      ...options,
      encoding: 'utf8',
    });
    process.stderr.write(stderr);
    return stdout;
  } catch (error) {
    process.stderr.write(error.stderr ?? '');
    throw new Error(`rlm ${args[0]} failed (exit ${error.code})`);
  }
}

const repl = (code) => `\`\`\`repl\n${code}\n\`\`\``;

/** What the root model answers at each step. */
const steps = [
  `Let me see the files first: their paths, sizes and titles.\n${repl(
    "for (const file of context) print(`${file.path} (${file.text.length} chars): ${file.text.split('\\n')[0]}`);",
  )}`,
  `Six short incident reports. I will ask a sub-model for each one's root cause and outage duration, all at once.\n${repl(
    [
      'const facts = await llm_query_batched(context.map((file) =>',
      '  `From this incident report, give the root cause in one short sentence, then the outage duration. Answer as: cause: ...; duration: ...\\n\\n${file.text}`));',
      'facts.forEach((fact, index) => print(`${context[index].path}: ${fact}`));',
    ].join('\n'),
  )}`,
  `Two of the six were expired certificates. I will keep those and submit their durations.\n${repl(
    [
      'const expired = context',
      '  .map((file, index) => ({ path: file.path, fact: facts[index] }))',
      '  .filter(({ fact }) => /certificate expired/i.test(fact));',
      'const lines = expired.map(({ path, fact }) => {',
      "  const [cause, duration] = fact.split('; duration: ');",
      "  return `- ${path}: ${duration}; ${cause.replace('cause: ', '')}`;",
      '});',
      "SUBMIT(`${expired.length} incidents were caused by an expired certificate:\\n${lines.join('\\n')}`);",
    ].join('\n'),
  )}`,
];

/** What the sub-model answers for each report, found by its title. */
const facts = {
  '2024-01-17':
    'cause: a migration recreated the orders table without its cart_id index; duration: 47 minutes (14:05-14:52 UTC)',
  '2024-03-02':
    "cause: the payment gateway's client TLS certificate expired; duration: 47 minutes (09:12-09:59 UTC)",
  '2024-05-21':
    'cause: the nightly reindex job swapped in an empty search index; duration: 3 hours 20 minutes (06:40-10:00 UTC)',
  '2024-07-08':
    'cause: a login rate limit keyed by IP address locked out users behind carrier NAT; duration: 25 minutes (17:20-17:45 UTC)',
  '2024-09-14':
    "cause: the edge proxy's TLS certificate expired after its automatic renewal failed; duration: 2 hours 10 minutes (00:00-02:10 UTC)",
  '2024-11-03':
    "cause: debug logging filled the mail queue's disk; duration: 4 hours 15 minutes (02:15-06:30 UTC)",
};

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

const server = await startFakeMessagesServer({
  handler: (request) => {
    const last = textOf(request.messages.at(-1).content);
    if (last.startsWith('From this incident report')) {
      const date = Object.keys(facts).find((day) => last.includes(`# Incident ${day}`));
      // A sub-call takes between half a second and a second and a half, as small models do.
      return fakeText(facts[date] ?? 'cause: unknown; duration: unknown', {
        delayMs: 500 + (Number(date?.slice(5, 7)) || 0) * 90,
      });
    }
    const step = request.messages.filter((message) => message.role === 'assistant').length;
    return fakeText(steps[step] ?? 'FINAL(the script ran out)', {
      delayMs: 900,
      stream: { eventDelayMs: 15 },
    });
  },
});
const store = mkdtempSync(path.join(tmpdir(), 'rlm-example-'));
try {
  const env = {
    ...process.env,
    ANTHROPIC_API_KEY: 'example-recording',
    ANTHROPIC_BASE_URL: server.url,
    NO_COLOR: '1',
  };
  const storePath = path.join(store, 'rlm.sqlite');
  process.stdout.write(
    await rlm(
      [
        question,
        '--context-dir',
        contextDirectory,
        '--model',
        `anthropic:${model}`,
        '--store',
        storePath,
        '--no-tool-reads',
      ],
      { env, cwd: store },
    ),
  );
  await rlm(['trace', '--last', '--jsonl', '--store', storePath, '-o', output], {
    env,
    cwd: store,
  });
} finally {
  await server.close();
  rmSync(store, { recursive: true, force: true });
}
