import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DurableToolStore } from '@rlm/core';
import { expect, test } from 'vitest';
import { createToolStore } from './tool-store.js';
import type { ToolStoreEvent } from './tool-store-event.js';

test('ToolStore is the DurableToolStore the loop uses: its known tools are data', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'rlm-durable-'));
  try {
    const store: DurableToolStore = createToolStore({ root });
    expect(await store.knownTools()).toEqual([]);
    await store.upsertTool('csv_parser', { purpose: 'parse CSV text into rows' });
    await store.persistGeneration('csv_parser', 'parse', {
      code: '(text) => text.split("\\n")',
      contract: { purpose: 'parse CSV text into rows' },
      model: 'scripted',
      trigger: 'forge',
      runtime: { runtimeVersion: '0.1.0', promptVersion: 'test' },
    });
    expect(await store.knownTools()).toEqual([
      { role: 'csv_parser', methods: ['parse'], purpose: 'parse CSV text into rows', calls: 0 },
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('the failure class the loop asks for is the one its outcome is counted under', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'rlm-durable-'));
  const events: ToolStoreEvent[] = [];
  try {
    const store: DurableToolStore = createToolStore({
      root,
      onEvent: (event) => events.push(event),
    });
    const failures = [
      { name: 'Error', message: 'request timed out after 30 s' },
      { name: 'TypeError', message: 'rows.map is not a function' },
      { name: 'Error', message: 'unexpected input format in line 3' },
    ];
    const asked = failures.map((error) => store.classifyFailure(error));
    expect(asked).toEqual(['extrinsic', 'intrinsic', 'adaptive']);
    for (const error of failures) {
      await store.recordOutcome('csv_parser', 'parse', {
        ok: false,
        programSource: 'generated',
        error,
      });
    }
    const counted = events.flatMap((event) =>
      event.type === 'tool_call' ? [event.failure_class] : [],
    );
    expect(counted).toEqual(asked);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
