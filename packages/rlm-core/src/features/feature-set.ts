import type { ArtifactRef } from '../artifact-store.js';
import type {
  CallOutcome,
  CallSetup,
  CallState,
  Feature,
  FeatureHostFunction,
  ResumedStep,
  RunningCall,
  Workspace,
} from './feature.js';

/**
 * The installed features of a run, as one: their names, prompt lines and hooks, in install
 * order. Two features (or a feature and the core) may not share a host function name.
 */
export class FeatureSet {
  readonly #features: readonly Feature[];
  readonly #functions = new Map<string, FeatureHostFunction>();
  /** Host functions model code can call, in install order. */
  readonly hostFunctionNames: readonly string[];
  /** Host functions only guest helpers hold. */
  readonly internalHostFunctionNames: readonly string[];
  /** Guest helpers of every feature. */
  readonly guestHelpers: Readonly<Record<string, string>>;
  /** The system prompt lines of every feature. */
  readonly replHelp: readonly string[];

  /**
   * @param coreNames names the core already uses (`llm_query`, ...): a feature may not take them.
   */
  constructor(features: readonly Feature[], coreNames: readonly string[]) {
    this.#features = features;
    const taken = new Set(coreNames);
    const claim = (feature: Feature, functions: Readonly<Record<string, FeatureHostFunction>>) => {
      const names = Object.keys(functions);
      for (const name of names) {
        if (taken.has(name)) {
          throw new TypeError(
            `@rlm/core: the ${feature.name} feature's host function ${name} is already taken; rename it`,
          );
        }
        taken.add(name);
        this.#functions.set(name, functions[name]!);
      }
      return names;
    };
    this.hostFunctionNames = features.flatMap((feature) => claim(feature, feature.hostFunctions));
    this.internalHostFunctionNames = features.flatMap((feature) =>
      claim(feature, feature.internalHostFunctions ?? {}),
    );
    this.guestHelpers = Object.assign({}, ...features.map((feature) => feature.guestHelpers ?? {}));
    this.replHelp = features.flatMap((feature) => feature.replHelp ?? []);
  }

  /** The host function named `name` of any feature (internal ones included). */
  hostFunction(name: string): FeatureHostFunction | undefined {
    return this.#functions.get(name);
  }

  /** Every feature's prompt section that is not empty, in install order. */
  async promptSections(): Promise<string[]> {
    const sections = await Promise.all(
      this.#features.map((feature) => feature.promptSection?.() ?? ''),
    );
    return sections.filter((section) => section.length > 0);
  }

  /** The first feature that restores something before the first step decides what. */
  async beforeFirstStep(
    call: CallState,
    workspace: Workspace,
    setup: CallSetup,
  ): Promise<ResumedStep | undefined> {
    for (const feature of this.#features) {
      const resumed = await feature.beforeFirstStep?.(call, workspace, setup);
      if (resumed) return resumed;
    }
    return undefined;
  }

  async beforeSandboxUse(call: RunningCall): Promise<void> {
    for (const feature of this.#features) await feature.beforeSandboxUse?.(call);
  }

  /** The features' notes for the model, taken once each. */
  takeNotes(call: RunningCall): string[] {
    return this.#features.flatMap((feature) => feature.takeNote?.(call) ?? []);
  }

  afterExecutedStep(call: RunningCall): void {
    for (const feature of this.#features) feature.afterExecutedStep?.(call);
  }

  /** The stored copy of an accepted answer, from the first feature that keeps one. */
  async onFinal(call: CallState, answer: unknown): Promise<ArtifactRef | undefined> {
    for (const feature of this.#features) {
      const artifact = await feature.onFinal?.(call, answer);
      if (artifact) return artifact;
    }
    return undefined;
  }

  beforeDispose(call: CallState): Promise<void> | undefined {
    return all(this.#features.map((feature) => feature.beforeDispose?.(call)));
  }

  beforeSettle(call: CallState, outcome: CallOutcome): Promise<void> | undefined {
    return all(this.#features.map((feature) => feature.beforeSettle?.(call, outcome)));
  }

  /** Resolves once no feature is writing any more. */
  pendingWrites(): Promise<void> {
    return all(this.#features.map((feature) => feature.pendingWrites?.())) ?? Promise.resolve();
  }
}

/** Waits for the pending ones, or `undefined` when there are none (settle at once). */
function all(pending: readonly (Promise<void> | undefined)[]): Promise<void> | undefined {
  const waits = pending.filter((wait): wait is Promise<void> => wait !== undefined);
  return waits.length === 0 ? undefined : Promise.all(waits).then(() => {});
}
