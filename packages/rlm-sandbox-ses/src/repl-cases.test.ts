import { replCases } from '@rlm/repl-transform';
import { describe, expect, test } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const createSandbox = createSesSandbox({
  workerUrl: new URL('../dist/worker.js', import.meta.url),
});

describe('the shared REPL table, through a real SES sandbox', () => {
  for (const replCase of replCases) {
    test(replCase.name, async () => {
      await using sandbox = await createSandbox({ hostFunctions: {} });
      for (const step of replCase.steps) {
        const result = await sandbox.execute(step.code);
        expect(result.error, step.code).toBeUndefined();
        expect(result.output, step.code).toBe(step.output);
        const listed = new Set((await sandbox.listVariables()).map((variable) => variable.name));
        for (const name of step.persists)
          expect(listed.has(name), `${step.code}: ${name}`).toBe(true);
      }
    });
  }
});
