import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);
const createSandbox = createQuickJsSandbox({ workerUrl });

/** Code that spends minutes in one native call: QuickJS searches a string naively. */
const nativeHang =
  'const haystack = "a".repeat(2e6); const needle = "a".repeat(2e5) + "b"; haystack.indexOf(needle)';

describe('QuickJsSandbox', () => {
  test('a timeout interrupts busy code in place: every variable stays, functions too', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    await sandbox.execute('const kept = { list: [1, 2] }; function helper() { return "helped"; }');
    const result = await sandbox.execute('while (true) {}', { timeoutMs: 300 });
    expect(result.error).toBe('Execution timed out after 300 ms');
    expect((await sandbox.execute('[kept.list.length, helper()].join()')).output).toBe('2,helped');
  });

  test('code inside one native built-in is stopped by replacing the worker; the variables come back, and those that cannot are named', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    await sandbox.setVariables({ context: 'the context' }, { readOnly: true });
    await sandbox.execute('const kept = { list: [1, 2] }; function helper() {}');
    const result = await sandbox.execute(nativeHang, { timeoutMs: 300 });
    expect(result.error).toBe(
      'Execution timed out after 300 ms; the sandbox restarted with its variables as of before this execution, except helper (functions, class instances and large values cannot be restored).',
    );
    const after = await sandbox.execute('[kept.list.length, typeof helper, context].join()');
    expect(after.output).toBe('2,undefined,the context');
    expect((await sandbox.execute('context = "changed"')).error).toMatch(/read-only/);
  });

  test('an abort stops code inside a native built-in too', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    await sandbox.execute('const kept = "kept"');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await sandbox.execute(nativeHang, { signal: controller.signal });
    expect(result.error).toMatch(/^Execution aborted; the sandbox restarted/);
    expect((await sandbox.execute('kept')).output).toBe('kept');
  });

  test('with snapshotLimitBytes 0 nothing is copied: a restart names every model variable lost', async () => {
    await using sandbox = await createQuickJsSandbox({ workerUrl, snapshotLimitBytes: 0 })({
      hostFunctions: {},
    });
    await sandbox.execute('const first = 1; const second = "two"');
    const result = await sandbox.execute(nativeHang, { timeoutMs: 300 });
    expect(result.error).toMatch(/except first, second \(/);
    expect((await sandbox.execute('typeof first')).output).toBe('undefined');
  });

  test('the copies for restarts follow what each execution changed, in place too', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    await sandbox.execute(
      'const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i })); const byName = { rows };',
    );
    await sandbox.execute('const small = 1');
    // Changed in place, through another variable that holds it.
    await sandbox.execute('byName.rows.push({ id: -1 }); byName.extra = true');
    const result = await sandbox.execute(nativeHang, { timeoutMs: 300 });
    expect(result.error).toMatch(/variables as of before this execution\.$/);
    const after = await sandbox.execute('[rows.length, rows[2000].id, byName.extra, small].join()');
    expect(after.output).toBe('2001,-1,true,1');
  });

  test('neither a sandbox left open nor its spare worker keeps the process alive', async () => {
    const index = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = `
      const { createQuickJsSandbox } = await import(${JSON.stringify(index)});
      const sandbox = await createQuickJsSandbox()({ hostFunctions: {} });
      await sandbox.execute('1');
      await new Promise((resolve) => setTimeout(resolve, 500));
    `;
    const run = promisify(execFile);
    await expect(
      run(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }),
    ).resolves.toBeDefined();
  });

  // Past 84 MB the heap stops growing more than 4 MB short of its limit (it asks for 1.05x its
  // size at least), and QuickJS, unable to make its error, throws null: at 256 MB the model was
  // told `Uncaught null`. Memory, not time, must end the bomb.
  test('out of memory at 256 MB, where QuickJS throws null, the error says so and the sandbox restarts', async () => {
    await using sandbox = await createSandbox({
      hostFunctions: {},
      limits: { memoryMb: 256, timeoutMs: 150_000 },
    });
    await sandbox.execute('const kept = "kept"; function helper() {}');
    const result = await sandbox.execute(
      'const hoard = []; for (;;) hoard.push({ text: "x".repeat(64) + hoard.length });',
    );
    expect(result.error).toBe(
      'Execution exceeded the memory limit (256 MB); the sandbox restarted with its variables as of before this execution, except helper (functions, class instances and large values cannot be restored).',
    );
    expect((await sandbox.execute('kept')).output).toBe('kept');
  }, 180_000);

  test('an error of the code’s own, after the heap once grew to its limit, is no memory error', async () => {
    await using sandbox = await createSandbox({
      hostFunctions: {},
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    await sandbox.execute('function helper() { return "helped"; }');
    const caught = await sandbox.execute(
      'let caught; try { const hoard = []; for (;;) hoard.push("y".repeat(2 ** 20) + hoard.length); } catch (error) { caught = String(error); } caught',
    );
    expect(caught.output).toBe('InternalError: out of memory');
    // The heap never shrinks, but this error is the code's: no restart, the function stays.
    expect((await sandbox.execute('throw new TypeError("mine")')).error).toBe('TypeError: mine');
    expect((await sandbox.execute('helper()')).output).toBe('helped');
  });

  test('the QuickJS heap cannot grow past memoryMb, whatever allocates', async () => {
    await using sandbox = await createSandbox({
      hostFunctions: {},
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    await sandbox.execute('const kept = "kept"');
    for (const bomb of [
      'const hoard = []; for (;;) hoard.push(new ArrayBuffer(2 ** 22));',
      'const hoard = []; for (;;) hoard.push("y".repeat(2 ** 20) + hoard.length);',
    ]) {
      const baseline = process.memoryUsage.rss();
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 2);
      const result = await sandbox.execute(bomb);
      clearInterval(sampler);
      expect(result.error).toMatch(/exceeded the memory limit \(64 MB\)/);
      // 64 MB of heap, and a new worker (~40 MB) that replaced the old one; QuickJS's own limit
      // let such a bomb reach 2 GiB.
      expect((peak - baseline) / 2 ** 20).toBeLessThan(64 + 128);
      expect((await sandbox.execute('kept')).output).toBe('kept');
    }
  });
});
