import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deserialize } from 'node:v8';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { hashContext, runKey } from '@rlm/core';
import { type FakeMessagesServer, type FakeReply, fakeText } from '@rlm/anthropic/testing';
import { afterAll, describe, expect, test } from 'vitest';
import { waitForCheckpoints } from '../test-support/wait-for-checkpoints.js';
import { writeFileIn } from '../test-support/write-file-in.js';
import { type BuiltRlmResult, rlmLines, startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * Faults from outside, end to end: the built bin as real processes against the fake Messages
 * API, with real SQLite files on a full tmpfs, a read-only mount and a damaged page, two
 * processes on one run, signals, FIFOs and devices.
 */

const run = promisify(execFile);

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-faults-');
const mounts: string[] = [];

// Registered after the workspace's hooks, so it runs before the root is removed.
afterAll(async () => {
  for (const mount of mounts.reverse()) await run('umount', ['-l', mount]).catch(() => {});
});

/** A tmpfs of `size` (e.g. `8m`) at a new directory; unmounted after the tests. */
async function mountTmpfs(name: string, size: string): Promise<string> {
  const directory = path.join(root, name);
  await mkdir(directory, { recursive: true });
  await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', directory]);
  mounts.push(directory);
  return directory;
}

function spawnRlm(
  args: readonly string[],
  server: FakeMessagesServer,
  options: { readonly cwd: string; readonly input?: string } = { cwd: root },
) {
  return startBuiltRlm(args, { ...options, baseURL: server.url });
}

async function rlm(
  args: readonly string[],
  replies: readonly FakeReply[],
  cwd = root,
): Promise<BuiltRlmResult & { readonly server: FakeMessagesServer }> {
  const server = await serve(replies);
  return { ...(await spawnRlm(args, server, { cwd }).done), server };
}

const storeNumbers = fakeText(
  '```repl\nconst numbers = [1, 2, 3];\nawait store("numbers", numbers, { description: "the numbers" });\nprint(numbers.length)\n```',
);

describe('a store that fails during a run', () => {
  test('a full disk: a blob too big for the disk is refused up front; on a disk filled by another file the first failure is said at once, the answer printed, exit 3; with --store-errors warn exit 0; earlier state kept; rlm store gc', {
    timeout: 120_000,
  }, async () => {
    const disk = await mountTmpfs('full-disk', '8m');
    const storeArgs = ['--store', path.join(disk, 'rlm.sqlite')];
    const before = await rlm(
      ['Count the numbers', ...storeArgs],
      [storeNumbers, fakeText('FINAL(3)')],
    );
    expect(before).toMatchObject({ code: 0, stdout: '3\n' });

    const storeHuge = fakeText(
      '```repl\ntry {\n  await store("huge", "x".repeat(20_000_000), { description: "too big" });\n  print("stored");\n} catch (error) {\n  print("store failed: " + error.message);\n}\n```',
    );
    // The store never fills its own disk: the write is refused before a byte of it lands.
    const refused = await rlm(
      ['Store a lot', ...storeArgs],
      [storeHuge, fakeText('FINAL(done anyway)')],
    );
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('done anyway\n');
    expect(rlmLines(refused.stderr)[0]).toMatch(
      /^rlm: the store failed \(put\): .*the disk holding the store is too full to store 19\.1 MiB .*exit 3/,
    );
    expect(JSON.stringify(refused.server.requests[1]!.body)).toContain(
      'store failed: @rlm/artifacts: the disk holding the store is too full',
    );

    // Another file fills the disk but for a little room: the store opens, then its writes
    // fail with the disk's own error.
    const filler = path.join(disk, 'filler');
    const { bavail, bsize } = await statfs(disk);
    await writeFile(filler, Buffer.alloc(bavail * bsize - 256 * 1024));
    const failed = await rlm(
      ['Count again', ...storeArgs],
      [storeNumbers, fakeText('FINAL(done anyway)')],
    );
    expect(failed.code).toBe(3);
    expect(failed.stdout).toBe('done anyway\n');
    const lines = rlmLines(failed.stderr);
    expect(lines[0]).toMatch(/^rlm: the store failed \(.+\): .*(full|SQLITE_FULL).*exit 3/);
    expect(lines.at(-1)).toMatch(
      /^rlm: the answer is printed, but the store failed \d+ times? during the run .*--store-errors warn$/,
    );

    const warned = await rlm(
      ['Count once more', ...storeArgs, '--store-errors', 'warn'],
      [storeNumbers, fakeText('FINAL(done anyway)')],
    );
    expect(warned).toMatchObject({ code: 0, stdout: 'done anyway\n' });
    expect(rlmLines(warned.stderr)[0]).toMatch(/^rlm: the store failed \(.+\): /);
    expect(warned.stderr).not.toContain('exit 3');

    await rm(filler);
    // What was stored before the failures is all there.
    const store = await createSqliteArtifactStore({ path: path.join(disk, 'rlm.sqlite') });
    try {
      const key = runKey('Count the numbers', hashContext(undefined));
      expect((await store.scoped(key).get('numbers'))?.value).toEqual([1, 2, 3]);
      const latest = await store.latestCheckpoint(key);
      expect(deserialize(latest!.serializedVariables.numbers!)).toEqual([1, 2, 3]);
    } finally {
      await store.close();
    }
    const gc = await rlm([...storeArgs, 'store', 'gc'], []);
    expect(gc.stderr).toBe('');
    expect(gc.code).toBe(0);
    expect(gc.stdout).toMatch(/^rlm store gc: (nothing to free|freed .*) in .*rlm\.sqlite\n$/);
    const again = await rlm([...storeArgs, 'store', 'gc'], []);
    expect(again.stdout).toMatch(/^rlm store gc: nothing to free in /);
  });

  test('a read-only store: one line naming the store, nothing sent to the model, the store unchanged', {
    timeout: 120_000,
  }, async () => {
    const disk = await mountTmpfs('read-only', '16m');
    const storeArgs = ['--store', path.join(disk, 'rlm.sqlite')];
    const before = await rlm(
      ['Count the numbers', ...storeArgs],
      [storeNumbers, fakeText('FINAL(3)')],
    );
    expect(before.code).toBe(0);
    const bytes = await readFile(path.join(disk, 'rlm.sqlite'));
    await run('mount', ['-o', 'remount,ro', disk]);
    const result = await rlm(['Count again', ...storeArgs], [fakeText('FINAL(never)')]);
    await run('mount', ['-o', 'remount,rw', disk]);
    expect(result.code).toBe(2);
    expect(rlmLines(result.stderr)).toEqual([
      expect.stringMatching(
        /^rlm: cannot open the SQLite artifact store at .*rlm\.sqlite: .*--no-store$/,
      ),
    ]);
    expect(result.server.requests).toHaveLength(0);
    expect((await readFile(path.join(disk, 'rlm.sqlite'))).equals(bytes)).toBe(true);
  });

  test('a corrupt page: the failure is said, the run exits 3, the rest of the store still reads', {
    timeout: 120_000,
  }, async () => {
    const directory = await mkdtemp(path.join(root, 'corrupt-'));
    const file = path.join(directory, 'rlm.sqlite');
    const before = await rlm(
      ['Count the numbers', '--store', file],
      [storeNumbers, fakeText('FINAL(3)')],
    );
    expect(before.code).toBe(0);
    // Overwrite the root page of the blob content table (64 KiB pages) with garbage.
    const { stdout } = await run('sqlite3', [
      file,
      "SELECT rootpage FROM sqlite_master WHERE name = 'rlm_blobs'",
    ]);
    const page = Number(stdout.trim());
    expect(page).toBeGreaterThan(1);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(65_536, 0xa5), 0, 65_536, (page - 1) * 65_536);
    await handle.close();

    // Two steps: the second waits for the first one's snapshot, so its save has begun (an
    // answer that comes before a snapshot is taken drops that checkpoint: nothing to save).
    const result = await rlm(
      ['Count again', '--store', file],
      [
        fakeText('```repl\nprint(1 + 1)\n```'),
        fakeText('```repl\nprint(2 + 2)\n```'),
        fakeText('FINAL(2)'),
      ],
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('2\n');
    const lines = rlmLines(result.stderr);
    // The trace, saved as the run ends, may fail first: the failures are said in either order.
    expect(lines).toContainEqual(
      expect.stringMatching(/^rlm: the store failed \(saveCheckpoint\): .*malformed/),
    );
    expect(lines.at(-1)).toMatch(/^rlm: the answer is printed, but the store failed/);
    // The index (records, checkpoint heads) is on other pages and still reads.
    const { stdout: heads } = await run('sqlite3', [
      file,
      "SELECT COUNT(*) FROM rlm_index WHERE key LIKE 'rlm:checkpoint%'",
    ]);
    expect(Number(heads.trim())).toBeGreaterThan(0);
  });
});

test('rlm store gc after a blob write killed half-way: prints what it freed, keeps what was committed', {
  timeout: 120_000,
}, async () => {
  const directory = await mkdtemp(path.join(root, 'gc-'));
  const file = path.join(directory, 'rlm.sqlite');
  const before = await rlm(
    ['Count the numbers', '--store', file],
    [storeNumbers, fakeText('FINAL(3)')],
  );
  expect(before.code).toBe(0);
  // A writer that stores 256 MiB through @rlm/artifacts, killed once some chunks are on disk.
  const script = fileURLToPath(
    new URL('../../node_modules/.cache/rlm-cli-test/write-huge.mjs', import.meta.url),
  );
  await mkdir(path.dirname(script), { recursive: true });
  await writeFile(
    script,
    `const { createSqliteArtifactStore } = await import('@rlm/artifacts');
const store = await createSqliteArtifactStore({ path: process.argv[2] });
await store.store('0123456789abcdef'.repeat(16 * 1024 * 1024));
console.log('committed');`,
  );
  const writer = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killed = new Promise((resolve) => writer.on('close', (_, signal) => resolve(signal)));
  const chunks = async () => {
    const { stdout } = await run('sqlite3', [
      file,
      "SELECT COUNT(*) FROM rlm_blobs WHERE key LIKE 'rlm:chunk:%'",
    ]);
    return Number(stdout.trim());
  };
  const committedChunks = await chunks();
  while ((await chunks()) < committedChunks + 3)
    await new Promise((resolve) => setTimeout(resolve, 20));
  writer.kill('SIGKILL');
  expect(await killed).toBe('SIGKILL');
  const orphans = (await chunks()) - committedChunks;

  const gc = await rlm(['--store', file, 'store', 'gc'], []);
  expect(gc.code).toBe(0);
  const freed =
    /^rlm store gc: freed ([\d.]+) MiB in (\d+) chunks \(1 unfinished write\) in (.*)\n$/.exec(
      gc.stdout,
    );
  expect(freed?.slice(2)).toEqual([String(orphans), file]);
  expect(Math.round(Number(freed?.[1]))).toBe(orphans * 4);
  expect(await chunks()).toBe(committedChunks);
  const again = await rlm(['--store', file, 'store', 'gc'], []);
  expect(again.stdout).toBe(`rlm store gc: nothing to free in ${file}\n`);
  const resumed = await rlm(
    ['Count the numbers', '--store', file, '--resume'],
    [fakeText('```repl\nprint((await load("numbers")).join("+"))\n```'), fakeText('FINAL(6)')],
  );
  expect(resumed).toMatchObject({ code: 0, stdout: '6\n' });
  expect(JSON.stringify(resumed.server.requests[1]!.body)).toContain('1+2+3');
});

describe('one writer per run', () => {
  test('a second process on the same run is refused naming the first pid; after SIGKILL of the first, --resume takes over', {
    timeout: 120_000,
  }, async () => {
    const directory = await mkdtemp(path.join(root, 'lease-'));
    const context = await writeFileIn(directory, 'numbers.txt', '1\n2\n3\n4');
    const args = ['Sum the numbers', '--context', context, '--store', 'rlm.sqlite'];
    const slow = await serve([
      fakeText(
        '```repl\nconst total = context.split("\\n").map(Number).reduce((a, b) => a + b, 0);\nprint(total)\n```',
      ),
      { ...fakeText('FINAL(never sent)'), delayMs: 120_000 },
    ]);
    const first = spawnRlm(args, slow, { cwd: directory });
    await first.stderrContains('● step 2');

    const idle = await serve([]);
    const second = await spawnRlm([...args, '--resume'], idle, { cwd: directory }).done;
    expect(second.code).toBe(2);
    expect(rlmLines(second.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^rlm: this run \\(same query and context\\) is being run by process ${first.pid} on .*kill ${first.pid}\\), then run again$`,
        ),
      ),
    ]);
    expect(idle.requests).toHaveLength(0);

    await waitForCheckpoints(path.join(directory, 'rlm.sqlite'), 1);
    first.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const resumed = await rlm([...args, '--resume'], [fakeText('FINAL_VAR(total)')], directory);
    expect(resumed).toMatchObject({ code: 0, stdout: '10\n' });
    expect(resumed.stderr).toContain(`rlm: took over the run from process ${first.pid} on `);
    expect(resumed.server.requests).toHaveLength(1);
  });

  test('SIGTERM ends a run like SIGINT: one line, checkpoint kept, exit 143; --resume continues', {
    timeout: 120_000,
  }, async () => {
    const directory = await mkdtemp(path.join(root, 'sigterm-'));
    const args = ['Slow question', '--store', 'rlm.sqlite'];
    const slow = await serve([
      fakeText('```repl\nconst half = 21;\nprint(half)\n```'),
      { ...fakeText('FINAL(too late)'), delayMs: 60_000 },
    ]);
    const running = spawnRlm(args, slow, { cwd: directory });
    await running.stderrContains('● step 2');
    running.kill('SIGTERM');
    const result = await running.done;
    expect(result.code).toBe(143);
    expect(result.stdout).toBe('');
    // The run's trace is kept too, and says so; nothing else is said.
    expect(rlmLines(result.stderr).filter((line) => !line.startsWith('rlm: trace kept'))).toEqual([
      'rlm: terminated (SIGTERM); the checkpoint is kept: rerun with --resume to continue',
    ]);
    const resumed = await rlm([...args, '--resume'], [fakeText('FINAL_VAR(half)')], directory);
    expect(resumed).toMatchObject({ code: 0, stdout: '21\n' });
    expect(resumed.stderr).not.toContain('took over');
    expect(JSON.stringify(resumed.server.requests[0]!.body)).toContain('resumed after iteration 1');
  });
});

describe('input checked up front: one line, exit 2, no model call', () => {
  const tool = (name: string) =>
    `{ name: ${JSON.stringify(name)}, description: 'd', inputSchema: { type: 'object' }, execute: () => 1 }`;

  test('--tools: an invalid name, a reserved name, a duplicate, a top-level await that never settles', {
    timeout: 120_000,
  }, async () => {
    const directory = await mkdtemp(path.join(root, 'tools-'));
    const cases = [
      [
        'invalid.mjs',
        `export const tools = [${tool('bad-name')}];`,
        /tool name "bad-name" is not a JavaScript identifier/,
      ],
      ['reserved.mjs', `export const tools = [${tool('context')}];`, /tool name "context"/],
      [
        'twice.mjs',
        `export const tools = [${tool('same')}, ${tool('same')}];`,
        /two tools are named "same"/,
      ],
      [
        'hangs.mjs',
        `await new Promise(() => {});\nexport const tools = [${tool('late')}];`,
        /--tools .*hangs\.mjs: its top-level await never settles/,
      ],
    ] as const;
    for (const [name, source, message] of cases) {
      const module = await writeFileIn(directory, name, source);
      const result = await rlm(['q', '--tools', module, '--no-store'], []);
      expect(result.code, name).toBe(2);
      expect(rlmLines(result.stderr), name).toEqual([expect.stringMatching(message)]);
      expect(result.stderr.split('\n').filter(Boolean), name).toHaveLength(1);
      expect(result.server.requests).toHaveLength(0);
    }
  });

  test('--toolstore: a file, a read-only directory', { timeout: 120_000 }, async () => {
    const directory = await mkdtemp(path.join(root, 'toolstore-'));
    const file = await writeFileIn(directory, 'a-file', 'x');
    const onFile = await rlm(['q', '--toolstore', file, '--no-store'], []);
    expect(onFile.code).toBe(2);
    expect(rlmLines(onFile.stderr)).toEqual([
      `rlm: --toolstore ${file} is not a directory; pass a directory (it is created if missing)`,
    ]);
    const listed = await rlm(['--toolstore', file, 'tools', 'list'], []);
    expect(listed.code).toBe(2);
    expect(rlmLines(listed.stderr)).toEqual([
      `rlm: --toolstore ${file} is not a directory; pass a directory (it is created if missing)`,
    ]);
    const readOnly = await mountTmpfs('read-only-toolstore', '1m');
    await run('mount', ['-o', 'remount,ro', readOnly]);
    const onReadOnly = await rlm(['q', '--toolstore', readOnly, '--no-store'], []);
    expect(onReadOnly.code).toBe(2);
    expect(rlmLines(onReadOnly.stderr)).toEqual([
      `rlm: --toolstore ${readOnly} is not writable (EROFS); pass a directory you can write`,
    ]);
    expect(onFile.server.requests.length + onReadOnly.server.requests.length).toBe(0);
  });

  test('a FIFO as context: says it waits, then reads what a writer sends', {
    timeout: 30_000,
  }, async () => {
    const directory = await mkdtemp(path.join(root, 'fifo-'));
    const fifo = path.join(directory, 'context.fifo');
    await run('mkfifo', [fifo]);
    const server = await serve([fakeText('FINAL_VAR(context)')]);
    const running = spawnRlm(['Echo the context', '--context', fifo, '--no-store'], server, {
      cwd: directory,
    });
    await running.stderrContains('is a FIFO: waiting for a writer');
    await writeFile(fifo, 'sent through the pipe');
    const result = await running.done;
    expect(result).toMatchObject({ code: 0, stdout: 'sent through the pipe\n' });
    expect(rlmLines(result.stderr)[0]).toBe(
      `rlm: --context ${fifo} is a FIFO: waiting for a writer to send the context and close it`,
    );
  });

  test('a device as context is refused', { timeout: 120_000 }, async () => {
    const result = await rlm(['q', '--context', '/dev/zero', '--no-store'], []);
    expect(result.code).toBe(2);
    expect(rlmLines(result.stderr)).toEqual([
      'rlm: --context /dev/zero is a device, not a file; save its content to a file and pass that',
    ]);
    expect(result.server.requests).toHaveLength(0);
  });
});
