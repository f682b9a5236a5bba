import { describe, expect, test } from 'vitest';
import { SandboxError } from '../errors/sandbox-error.js';
import { createScriptedSandbox } from './scripted-sandbox.js';

describe('createScriptedSandbox', () => {
  test('runs the handler scripted for the code; unscripted code is an error value', async () => {
    const factory = createScriptedSandbox({
      'print(1)': ({ print }) => print(1, 'two', { three: 3 }),
      'const x = 41': { variables: { x: 41 } },
      fails: () => {
        throw new RangeError('too far');
      },
    });
    const sandbox = await factory({ hostFunctions: {} });
    expect(await sandbox.execute('  print(1)\n')).toMatchObject({ output: '1 two {"three":3}' });
    expect((await sandbox.execute('const x = 41')).error).toBeUndefined();
    expect(await sandbox.getVariable('x')).toBe(41);
    expect((await sandbox.execute('fails')).error).toBe('RangeError: too far');
    expect((await sandbox.execute('nope')).error).toMatch(/no script for this code: "nope"/);
    expect(factory.sandboxes[0]?.executions).toEqual([
      '  print(1)\n',
      'const x = 41',
      'fails',
      'nope',
    ]);
  });

  test('handlers call host functions; a host rejection arrives as a plain Error', async () => {
    const calls: unknown[][] = [];
    const factory = createScriptedSandbox(async ({ host, print }) => {
      print(await host.echo?.('a', 1));
      await host.fail?.();
    });
    const sandbox = await factory({
      hostFunctions: {
        echo: async (...args) => {
          calls.push(args);
          return 'echoed';
        },
        fail: async () => {
          throw new SandboxError('host secret detail');
        },
      },
    });
    const result = await sandbox.execute('anything');
    expect(calls).toEqual([['a', 1]]);
    expect(result.output).toBe('echoed');
    expect(result.error).toBe('Error: host secret detail');
  });

  test('variables: listing sorted and shaped, copies, read-only and protected names', async () => {
    const factory = createScriptedSandbox(({ variables }) => variables.set('context', 'changed'));
    const sandbox = await factory({ hostFunctions: { llm_query: async () => '' } });
    await sandbox.setVariables({ context: 'abc' }, { readOnly: true });
    await sandbox.setVariables({ list: [1, 2, 3], map: new Map([['k', 1]]) });
    expect(await sandbox.listVariables()).toEqual([
      { name: 'context', type: 'string', size: 3, preview: '"abc"' },
      { name: 'list', type: 'array', size: 3, preview: '[1,2,3]' },
      { name: 'map', type: 'map', size: 1, preview: '{}' },
    ]);
    const copy = (await sandbox.getVariable('list')) as number[];
    copy.push(4);
    expect(await sandbox.getVariable('list')).toEqual([1, 2, 3]);
    expect((await sandbox.execute('x')).error).toMatch(/TypeError: Assignment to constant/);
    await expect(sandbox.getVariable('missing')).rejects.toSatisfy(SandboxError.isInstance);
    await expect(sandbox.setVariables({ llm_query: 1 })).rejects.toSatisfy(SandboxError.isInstance);
  });

  test('snapshots round-trip through restoreVariables; unchanged digests send no bytes', async () => {
    const factory = createScriptedSandbox({
      define: { variables: { when: new Date(0), fn: () => 1, big: 'x'.repeat(100) } },
    });
    const first = await factory({ hostFunctions: {} });
    await first.execute('define');
    const snapshot = await first.snapshotVariables!({ maxBytesPerVariable: 50 });
    expect(snapshot.map((entry) => [entry.name, entry.state])).toEqual([
      ['big', 'skipped'],
      ['fn', 'skipped'],
      ['when', 'saved'],
    ]);
    const saved = snapshot.find((entry) => entry.state === 'saved');
    if (saved?.state !== 'saved') throw new Error('no saved entry');
    const again = await first.snapshotVariables!({
      maxBytesPerVariable: 50,
      previousDigests: { when: saved.digest },
    });
    expect(again.find((entry) => entry.name === 'when')?.state).toBe('unchanged');
    const second = await factory({ hostFunctions: {} });
    expect(await second.restoreVariables!({ when: saved.bytes })).toEqual([]);
    expect(await second.getVariable('when')).toEqual(new Date(0));

    const plain = await createScriptedSandbox(() => {}, { snapshots: false })({
      hostFunctions: {},
    });
    expect(plain.snapshotVariables).toBeUndefined();
  });

  test('timeouts and aborts end the execution with an error; host waits do not count', async () => {
    const factory = createScriptedSandbox({
      hang: ({ signal }) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
      'slow host': async ({ host }) => {
        await host.slow?.();
        return 'came back';
      },
    });
    const sandbox = await factory({
      hostFunctions: { slow: () => new Promise((resolve) => setTimeout(resolve, 200)) },
      limits: { timeoutMs: 50 },
    });
    expect((await sandbox.execute('hang')).error).toMatch(/TimeoutError/);
    expect(await sandbox.execute('slow host')).toMatchObject({ output: 'came back' });
    const abort = new AbortController();
    const running = sandbox.execute('hang', { signal: abort.signal, timeoutMs: 60_000 });
    abort.abort();
    expect((await running).error).toMatch(/AbortError/);
  });

  test('dispose is idempotent and later calls reject with SandboxError', async () => {
    const factory = createScriptedSandbox(() => 'ok');
    const sandbox = await factory({ hostFunctions: {} });
    await sandbox.dispose();
    await sandbox.dispose();
    expect(factory.sandboxes[0]?.disposed).toBe(true);
    await expect(sandbox.execute('x')).rejects.toSatisfy(SandboxError.isInstance);
    await expect(sandbox.listVariables()).rejects.toSatisfy(SandboxError.isInstance);
  });
});
