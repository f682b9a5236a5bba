/** What an execution's code names, for {@link ReachTracker.beforeExecution}. */
export interface ExecutionNames {
  /** The writable variables its code names (in functions too), declarations included. */
  readonly names: Iterable<string>;
  /**
   * It may reach any variable: it used `eval`, `Function`, `globalThis` or top-level `this`, or
   * called a guest helper (code that is not rewritten).
   */
  readonly everything: boolean;
}

/** The state after an execution, for {@link ReachTracker.afterExecution}. */
export interface ExecutionAfter {
  /** Variables that functions made by any execution name (they change when those run). */
  readonly captured: ReadonlySet<string>;
  /** Whether some function made by an execution reaches variables dynamically. */
  readonly capturesDynamically: boolean;
}

/**
 * Which model variables an execution could have changed in place, so that work done per
 * variable after each step (the crash-recovery copy, the listing, a checkpoint) is redone only
 * for those. Tracked conservatively from the names each execution's code names: the
 * object-valued variables named in one execution form one group for good (one may now hold the
 * other), and naming any of a group marks the whole group; naming an object or a function also
 * links and marks every variable some function names (a closure may run); reaching variables
 * dynamically, or through a guest helper, marks everything.
 *
 * Marks are stamped with a generation that grows by one per execution, so several readers can
 * each ask "changed since the generation I last looked at?" without clearing each other's marks.
 * A replaced value is not a mark: readers compare identities themselves.
 */
export class ReachTracker {
  /** Union-find parents of the groups of names named together. */
  readonly #groups = new Map<string, string>();
  /** The generation each group root was last marked at. */
  readonly #markedAt = new Map<string, number>();
  #everythingAt = 0;
  #generation = 0;
  #pending:
    | { readonly names: string[]; readonly objectsBefore: string[]; readonly everything: boolean }
    | undefined;

  /** The generation of the last execution ended (0 before any); marks never exceed it. */
  get generation(): number {
    return this.#generation;
  }

  /** Notes what an execution's code names, before it runs. */
  beforeExecution(execution: ExecutionNames, readVariable: (name: string) => unknown): void {
    const names = [...new Set(execution.names)];
    this.#pending = {
      names,
      objectsBefore: names.filter((name) => !isPrimitive(readVariable(name))),
      everything: execution.everything,
    };
  }

  /**
   * Ends the execution noted by {@link beforeExecution}: starts a new generation, marks what it
   * could have changed, and links the object-valued variables it named (before or after it ran)
   * into one group for good.
   */
  afterExecution(after: ExecutionAfter, readVariable: (name: string) => unknown): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    const generation = ++this.#generation;
    const objectsNow = pending.names.filter((name) => !isPrimitive(readVariable(name)));
    const touchesObjects = pending.objectsBefore.length > 0 || objectsNow.length > 0;
    if (pending.everything || (touchesObjects && after.capturesDynamically)) {
      this.#everythingAt = generation;
      return;
    }
    if (!touchesObjects) return;
    // A function it called may change, or link, whatever some function names.
    const linked = [...pending.objectsBefore, ...objectsNow, ...after.captured];
    const [first, ...rest] = linked;
    if (first === undefined) return;
    for (const name of rest) this.#union(first, name);
    this.#markedAt.set(this.#root(first), generation);
  }

  /**
   * Whether an execution that ended after generation `since` could have changed the value of
   * `name` in place.
   */
  mayHaveChangedSince(name: string, since: number): boolean {
    return this.#everythingAt > since || (this.#markedAt.get(this.#root(name)) ?? 0) > since;
  }

  #root(name: string): string {
    let root = name;
    for (let parent = this.#groups.get(root); parent !== undefined && parent !== root; ) {
      root = parent;
      parent = this.#groups.get(root);
    }
    if (root !== name) this.#groups.set(name, root);
    return root;
  }

  #union(a: string, b: string): void {
    const rootA = this.#root(a);
    const rootB = this.#root(b);
    if (rootA === rootB) return;
    this.#groups.set(rootB, rootA);
    // A merged group keeps the newer of the two marks.
    const markB = this.#markedAt.get(rootB);
    if (markB === undefined) return;
    this.#markedAt.delete(rootB);
    if (markB > (this.#markedAt.get(rootA) ?? 0)) this.#markedAt.set(rootA, markB);
  }
}

/** Whether `value` is a primitive (an immutable value: identity says it is unchanged). */
export function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}
