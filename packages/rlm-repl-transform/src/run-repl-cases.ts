import { replCases } from './repl-cases.js';

/** What {@link runReplCases} needs of a sandbox: `Sandbox` of `@rlm/core` has it. */
export interface ReplCasesSandbox {
  execute(code: string): Promise<{ readonly output: string; readonly error?: string }>;
  listVariables(): Promise<readonly { readonly name: string }[]>;
  dispose(): Promise<void>;
}

/** The test runner's functions (vitest's fit). */
export interface ReplCasesApi {
  readonly describe: (name: string, fn: () => void) => void;
  readonly test: (name: string, fn: () => Promise<void>) => void;
  readonly expect: (
    actual: unknown,
    message?: string,
  ) => { toBe(expected: unknown): void; toBeUndefined(): void };
}

/**
 * Registers one test per {@link replCases} case, run through real sandboxes from `create` (a
 * fresh one a case): each step must run without error, print the step's output, and leave the
 * names it persists in the listing.
 */
export function runReplCases(options: {
  /** Names the sandbox in the group's title. */
  readonly name: string;
  readonly create: () => Promise<ReplCasesSandbox>;
  readonly api: ReplCasesApi;
}): void {
  const { api, create } = options;
  api.describe(`The shared REPL table (${options.name})`, () => {
    for (const replCase of replCases) {
      api.test(replCase.name, async () => {
        const sandbox = await create();
        try {
          for (const step of replCase.steps) {
            const result = await sandbox.execute(step.code);
            api.expect(result.error, step.code).toBeUndefined();
            api.expect(result.output, step.code).toBe(step.output);
            const listed = new Set((await sandbox.listVariables()).map(({ name }) => name));
            for (const name of step.persists) {
              api.expect(listed.has(name), `${step.code}: ${name} persists`).toBe(true);
            }
          }
        } finally {
          await sandbox.dispose();
        }
      });
    }
  });
}
