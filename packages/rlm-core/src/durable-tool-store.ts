/**
 * The narrow interface the loop uses to keep tools that runs build: model code declares a role
 * with a contract (`delegate`) and calls its methods (`tool(role).method(...)`); a method's
 * code is written by the model once, persisted when it works, and reused by later runs in
 * other processes. `@rlm/toolstore`'s `ToolStore` implements it on plain files.
 */

/** What a role promises; plain JSON, fingerprinted: changing it marks persisted methods stale. */
export type DurableToolContract = object;

/** The runtime persisted code was written for. */
export interface DurableToolRuntime {
  /** Semver of the runtime that runs method code; code from an incompatible version is regenerated. */
  readonly runtimeVersion: string;
  /** Version of the prompts that write method code. Recorded, never compared. */
  readonly promptVersion: string;
}

/** A persisted method, as much as the loop reads of it. */
export interface DurableToolMethod {
  /** A function expression, e.g. `async (text) => ...`. */
  readonly code: string;
  readonly generation_id: string;
  readonly contract: DurableToolContract;
  readonly last_failure_reason: string | null;
}

/** How to serve one method call. */
export type DurableToolSelection =
  | { readonly action: 'run'; readonly artifact: DurableToolMethod }
  | { readonly action: 'repair'; readonly artifact: DurableToolMethod; readonly reason: string }
  | { readonly action: 'generate'; readonly reason: string };

/** Where the code of a call came from. */
export type DurableToolSource = 'persisted' | 'generated' | 'repaired';

/** What happened when a method ran. */
export type DurableToolOutcome =
  | {
      readonly ok: true;
      readonly programSource: DurableToolSource;
      readonly generationId?: string;
      readonly durationMs?: number;
    }
  | {
      readonly ok: false;
      readonly programSource: DurableToolSource;
      readonly generationId?: string;
      readonly durationMs?: number;
      /** `{ name, message }` of what the code threw. */
      readonly error: { readonly name: string; readonly message: string };
    };

/**
 * Why a method call failed, as the store classifies it; the one policy that decides both how
 * the failure counts against the method and whether the loop tries a repair at once:
 * - `intrinsic`: the code is wrong (a `TypeError`, a wrong result, anything unrecognised);
 *   the loop repairs it within the call's attempts.
 * - `adaptive`: the input changed format; the loop repairs it too.
 * - `extrinsic`: the world failed (a timeout, a rate limit, the network, an abort); new code
 *   would not help, so the loop does not repair, and a healthy method is not demoted.
 */
export type DurableToolFailureClass = 'intrinsic' | 'adaptive' | 'extrinsic';

/** Code that has just worked, to persist as a method's new generation. */
export interface DurableToolGeneration {
  readonly code: string;
  readonly contract: DurableToolContract;
  /** The model that wrote it. */
  readonly model: string;
  readonly trigger: 'forge' | 'repair' | 'regenerate';
  /** The generation it repairs or replaces, if any. */
  readonly parent?: string | null;
  readonly runtime: DurableToolRuntime;
}

/** One tool of the known-tools list: data the loop renders as the prompt's known-tools block. */
export interface DurableToolSummary {
  /** The tool's role, an identifier. */
  readonly role: string;
  /** Its methods' names, identifiers. */
  readonly methods: readonly string[];
  /** The contract's purpose: text a model wrote in another run, so data, never instructions. */
  readonly purpose: string;
  /** Calls counted so far. */
  readonly calls: number;
  /**
   * Share of the judged calls (successes and intrinsic or adaptive failures; extrinsic ones are
   * not the tool's fault) that succeeded, from 0 to 1; absent when no call was judged.
   */
  readonly successRate?: number;
}

/** Durable storage and policy for tools built by runs. */
export interface DurableToolStore {
  /** The role's registered tool, if any. */
  findTool(role: string): Promise<{ readonly contract: DurableToolContract } | undefined>;
  /** Declares or updates a role's contract. Idempotent for the same contract. */
  upsertTool(role: string, contract: DurableToolContract): Promise<unknown>;
  /** Decides whether to run persisted code, repair it, or generate new code. */
  select(
    role: string,
    method: string,
    contract: DurableToolContract,
    runtime: DurableToolRuntime,
  ): Promise<DurableToolSelection>;
  /**
   * Classifies a failed call (`{ name, message }` of what the code threw). Pure and
   * synchronous; `recordOutcome` counts a failure under the same class.
   */
  classifyFailure(error: {
    readonly name: string;
    readonly message: string;
  }): DurableToolFailureClass;
  /** Counts one call and logs it. */
  recordOutcome(role: string, method: string, outcome: DurableToolOutcome): Promise<unknown>;
  /** Persists code that worked; resolves to the method as written. */
  persistGeneration(
    role: string,
    method: string,
    generation: DurableToolGeneration,
  ): Promise<{ readonly generation_id: string }>;
  /**
   * The stored tools, best first by the store's ranking; `[]` when none. The loop bounds the
   * list and writes the prompt's `<known_tools>` block from it.
   */
  knownTools(): Promise<readonly DurableToolSummary[]>;
}
