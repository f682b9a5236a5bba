import { Utf8Text } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const createSandbox = createSesSandbox({
  workerUrl: new URL('../dist/worker.js', import.meta.url),
});

function utf8TextOf(text: string, shared: boolean): Utf8Text {
  const encoded = new TextEncoder().encode(text);
  const bytes = shared
    ? new Uint8Array(new SharedArrayBuffer(encoded.length))
    : new Uint8Array(encoded.length);
  bytes.set(encoded);
  const made = Utf8Text.fromBytes(bytes);
  if (made === undefined) throw new Error('valid UTF-8 refused');
  return made;
}

describe('a Utf8Text variable', () => {
  test('is its string in the sandbox, from shared or unshared bytes, and after a restart', async () => {
    const text = 'first line\nsecond é 😀 line\n'.repeat(1_000);
    await using sandbox = await createSandbox({
      hostFunctions: {},
      limits: { timeoutMs: 10_000 },
    });
    expect(sandbox.acceptsUtf8Text).toBe(true);
    const shared = utf8TextOf(text, true);
    await sandbox.setVariables(
      { context: shared, context_0: shared, other: utf8TextOf('small', false) },
      { readOnly: true },
    );
    const check = `[typeof context, context.length, context === context_0, context.split('\\n').length, other]`;
    const expected = `["string", ${text.length}, true, ${text.split('\n').length}, "small"]`;
    expect((await sandbox.execute(check)).output).toBe(expected);
    expect(await sandbox.getVariable('context')).toBe(text);
    const listed = (await sandbox.listVariables()).find((variable) => variable.name === 'context');
    expect(listed).toMatchObject({ type: 'string', size: text.length });
    // The worker is replaced; the host sends the bytes again.
    const stuck = await sandbox.execute('while (true) {}', { timeoutMs: 300 });
    expect(stuck.error).toMatch(/timed out/);
    expect((await sandbox.execute(check)).output).toBe(expected);
    // Model code gets the string, never the shared memory behind it.
    expect((await sandbox.execute('typeof SharedArrayBuffer')).output).toBe('undefined');
    expect((await sandbox.execute('context = "x"')).error).toMatch(/read-only/);
  });

  test('listed before it is decoded as the string is; a new value set meanwhile wins', async () => {
    const text = `${'é😀 word '.repeat(50)}\n${'tail '.repeat(10_000)}`;
    await using fromBytes = await createSandbox({ hostFunctions: {} });
    await using fromString = await createSandbox({ hostFunctions: {} });
    await fromBytes.setVariables({ context: utf8TextOf(text, true), kept: utf8TextOf('k', true) });
    await fromString.setVariables({ context: text, kept: 'k' });
    expect(await fromBytes.listVariables()).toEqual(await fromString.listVariables());
    await fromBytes.setVariables({ kept: 'replaced' });
    expect(
      (await fromBytes.execute('[context === ' + JSON.stringify(text) + ', kept]')).output,
    ).toBe('[true, "replaced"]');
    expect(await fromBytes.listVariables()).toEqual(
      (await fromString.listVariables()).map((variable) =>
        variable.name === 'kept' ? { ...variable, preview: '"replaced"', size: 8 } : variable,
      ),
    );
  });
});
