import { randomUUID } from 'node:crypto';
import type {
  ArtifactCatalogEntry,
  ArtifactRecord,
  ArtifactStore,
  ArtifactRef,
  ArtifactRecordInput,
  Checkpoint,
  CheckpointInput,
  CheckpointSummary,
  LoadCheckpointOptions,
} from '../../artifact-store.js';
import { Utf8Text } from '../../utf8-text.js';
import type { SetupCounts } from '../../prompts.js';
import { describeEvictions, type SessionEvictions } from './describe-evictions.js';

export type { SessionEvictions };
import type { CurrentQueryHistory, HistoryEntry, HistoryStep } from '../../history-entry.js';

export type { CurrentQueryHistory, HistoryEntry, HistoryStep };

/**
 * Bounds of what a persistent session keeps in memory (the host's references and the
 * sandbox's `context_0..n` and `history`). Unset bounds are unlimited. They are applied when a
 * query starts; the current query's context is always kept.
 */
export interface SessionMemorySettings {
  /** Most contexts kept in memory, the current one included. At least 1. */
  readonly maxContexts?: number;
  /**
   * Most characters of context kept in memory: a string context counts its length, any other
   * its JSON text's. The current context is kept even when it alone is larger.
   */
  readonly maxContextChars?: number;
  /** Most entries of `history` kept in memory (the newest). */
  readonly maxHistoryEntries?: number;
  /**
   * Most characters of `history` kept in memory: each entry counts its query's length and its
   * answer's (a string's length, anything else its JSON text's). The newest entries are kept.
   */
  readonly maxHistoryChars?: number;
  /**
   * What happens to a context or history entry past a bound. `spill` (the default when
   * `artifacts` is set) stores it in the artifact store, in a scope of the session, as the
   * record `context_<n>` or `history_<n>` that model code reads back with `load(name)`;
   * `drop` (the default without `artifacts`) forgets it. Either way `context_<n>` becomes a
   * short string saying where the context went, and the prompt says what was moved.
   */
  readonly overflow?: 'drop' | 'spill';
}

/** Counts of a session for the prompt's context metadata. */
export interface SessionCounts {
  /** Contexts given so far (`context_0..n`), in memory or not. */
  readonly contexts: number;
  /** Earlier queries of the session, in `history` or not. */
  readonly histories: number;
  /** Set once something was moved out of memory. */
  readonly evicted?: SessionEvictions;
}

interface KeptContext {
  readonly value: unknown;
  readonly chars: number;
}

/**
 * The contexts and history of one persistent session, bounded by {@link SessionMemorySettings}.
 * Keeps references only to what is in memory; evicted contexts are replaced in the sandbox by
 * the placeholder strings {@link SessionMemory.enforce} returns.
 */
export class SessionMemory {
  readonly #maxContexts: number;
  readonly #maxContextChars: number;
  readonly #maxHistoryEntries: number;
  readonly #maxHistoryChars: number;
  readonly #overflow: 'drop' | 'spill';
  readonly #store: ArtifactStore | undefined;
  #scope: ArtifactStore | undefined;
  /** By index; `undefined` once evicted. */
  #contexts: (KeptContext | undefined)[] = [];
  #evictedContexts: number[] = [];
  #history: HistoryEntry[] = [];
  /** Characters of each entry of `#history`, in the same order. */
  #historyChars: number[] = [];
  #evictedHistories = 0;

  /**
   * Throws a `TypeError` for a bound that is not a positive integer, and for `spill` without
   * an artifact store.
   */
  constructor(settings: SessionMemorySettings = {}, store?: ArtifactStore) {
    this.#maxContexts = bound(settings.maxContexts, 'maxContexts');
    this.#maxContextChars = bound(settings.maxContextChars, 'maxContextChars');
    this.#maxHistoryEntries = bound(settings.maxHistoryEntries, 'maxHistoryEntries');
    this.#maxHistoryChars = bound(settings.maxHistoryChars, 'maxHistoryChars');
    const overflow = settings.overflow ?? (store ? 'spill' : 'drop');
    if (overflow !== 'spill' && overflow !== 'drop') {
      throw new TypeError(
        `@rlm/core: session.memory.overflow must be 'drop' or 'spill', got ${JSON.stringify(overflow)}`,
      );
    }
    if (overflow === 'spill' && !store) {
      throw new TypeError(
        "@rlm/core: session.memory.overflow 'spill' needs an artifact store: createRLM({ artifacts: { store } }), or use 'drop'",
      );
    }
    this.#overflow = overflow;
    this.#store = store;
  }

  /**
   * The index `n` of `context` as `context_<n>`: the index it already has when the same value
   * (by identity) is still in memory, else a new one (`added`).
   */
  admit(context: unknown): { readonly index: number; readonly added: boolean } {
    const kept = this.#contexts.findIndex(
      (entry) => entry !== undefined && entry.value === context,
    );
    if (kept >= 0) return { index: kept, added: false };
    const index = this.#contexts.push({ value: context, chars: valueChars(context) }) - 1;
    return { index, added: true };
  }

  /** Records a finished query for `history`. */
  record(entry: HistoryEntry): void {
    this.#history.push(entry);
    this.#historyChars.push(entry.query.length + valueChars(entry.answer));
  }

  /**
   * Moves the oldest contexts (never `current`) and history entries past the bounds out of
   * memory. With `spill` every record is written before anything is forgotten: when the store
   * fails, its error is thrown and nothing changed (a context that is not JSON data cannot be
   * stored and is dropped). Returns the variables to set in the sandbox: a placeholder string
   * for each context evicted now.
   */
  async enforce(current: number): Promise<Record<string, string>> {
    const contexts = this.#contextsToEvict(current);
    const histories = this.#historyToEvict();
    const stored = new Set<number>();
    if (this.#overflow === 'spill') {
      for (const index of contexts) {
        const name = `context_${index}`;
        const record = {
          type: 'context',
          value: this.#contexts[index]!.value,
          description: `${name}: a context of this session, moved out of memory (sessionMemory)`,
        };
        if (await this.#spill(name, record)) stored.add(index);
      }
      for (let position = 0; position < histories; position += 1) {
        const number = this.#evictedHistories + position;
        await this.#spill(`history_${number}`, {
          type: 'history',
          value: this.#history[position]!,
          description: `history_${number}: query ${number} of this session and its answer`,
        });
      }
    }
    const placeholders: Record<string, string> = {};
    for (const index of contexts) {
      const name = `context_${index}`;
      this.#contexts[index] = undefined;
      placeholders[name] = stored.has(index)
        ? `[${name} is no longer in memory: get it with await load("${name}")]`
        : `[${name} was dropped from this session's memory (sessionMemory); it is gone]`;
    }
    this.#evictedContexts = [...this.#evictedContexts, ...contexts].sort((a, b) => a - b);
    this.#history.splice(0, histories);
    this.#historyChars.splice(0, histories);
    this.#evictedHistories += histories;
    return placeholders;
  }

  /** The `history` entries in memory, oldest first (a copy). */
  get history(): HistoryEntry[] {
    return [...this.#history];
  }

  /** Counts for the prompt. */
  /** The counts as the loop shows them, with the line saying what was moved out of memory. */
  get setupCounts(): SetupCounts {
    const { contexts, histories, evicted } = this.counts;
    return {
      contexts,
      histories,
      ...(evicted ? { memoryNote: describeEvictions(evicted, histories) } : {}),
    };
  }

  get counts(): SessionCounts {
    const evicted =
      this.#evictedContexts.length > 0 || this.#evictedHistories > 0
        ? {
            overflow: this.#overflow,
            contexts: [...this.#evictedContexts],
            histories: this.#evictedHistories,
          }
        : undefined;
    return {
      contexts: this.#contexts.length,
      histories: this.#evictedHistories + this.#history.length,
      ...(evicted ? { evicted } : {}),
    };
  }

  /** `context_0..n`, in memory or not: the sandbox holds each (a placeholder once evicted). */
  get contextNames(): string[] {
    return this.#contexts.map((_, index) => `context_${index}`);
  }

  /**
   * The run's store as model code should see it: what a spilled context or history entry
   * became is readable with `load` and listed by `list_artifacts`; writes and checkpoints go to
   * `run`. `run` itself when nothing can have been spilled.
   */
  view(run: ArtifactStore): ArtifactStore {
    return this.#overflow === 'spill' && this.#store
      ? new SessionRecordsView(run, this.#sessionScope())
      : run;
  }

  /** Forgets everything; spilled records of the old session are no longer reachable. */
  reset(): void {
    this.#contexts = [];
    this.#evictedContexts = [];
    this.#history = [];
    this.#historyChars = [];
    this.#evictedHistories = 0;
    this.#scope = undefined;
  }

  #contextsToEvict(current: number): number[] {
    const kept = this.#contexts.flatMap((entry, index) =>
      entry !== undefined && index !== current ? [{ index, chars: entry.chars }] : [],
    );
    let count = kept.length + 1;
    let chars = kept.reduce((sum, entry) => sum + entry.chars, this.#contexts[current]!.chars);
    const evict: number[] = [];
    for (const entry of kept) {
      if (count <= this.#maxContexts && chars <= this.#maxContextChars) break;
      evict.push(entry.index);
      count -= 1;
      chars -= entry.chars;
    }
    return evict;
  }

  /** How many of the oldest history entries go: past the count bound, then past the size bound. */
  #historyToEvict(): number {
    let count = this.#history.length;
    let chars = this.#historyChars.reduce((sum, entryChars) => sum + entryChars, 0);
    let evict = 0;
    while (count > 0 && (count > this.#maxHistoryEntries || chars > this.#maxHistoryChars)) {
      chars -= this.#historyChars[evict]!;
      evict += 1;
      count -= 1;
    }
    return evict;
  }

  /** Writes a record to the session's scope; false when the value cannot be stored (not JSON). */
  async #spill(name: string, record: ArtifactRecordInput): Promise<boolean> {
    try {
      await this.#sessionScope().put(name, record);
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ArtifactValueError') return false;
      throw error;
    }
  }

  #sessionScope(): ArtifactStore {
    this.#scope ??= this.#store!.scoped(`rlm-session-${randomUUID()}`);
    return this.#scope;
  }
}

/** A run's store whose record reads fall back to the session's spilled records. */
class SessionRecordsView implements ArtifactStore {
  readonly #run: ArtifactStore;
  readonly #session: ArtifactStore;

  constructor(run: ArtifactStore, session: ArtifactStore) {
    this.#run = run;
    this.#session = session;
  }

  get scope(): string {
    return this.#run.scope;
  }

  scoped(scope: string): ArtifactStore {
    return this.#run.scoped(scope);
  }

  store(content: string | Uint8Array): Promise<ArtifactRef> {
    return this.#run.store(content);
  }

  load(id: string): Promise<string> {
    return this.#run.load(id);
  }

  loadBytes(id: string): Promise<Uint8Array> {
    return this.#run.loadBytes(id);
  }

  has(id: string): Promise<boolean> {
    return this.#run.has(id);
  }

  list(): Promise<ArtifactRef[]> {
    return this.#run.list();
  }

  put(name: string, record: ArtifactRecordInput): Promise<ArtifactCatalogEntry> {
    return this.#run.put(name, record);
  }

  async get(name: string): Promise<ArtifactRecord | undefined> {
    return (await this.#run.get(name)) ?? (await this.#session.get(name));
  }

  async names(): Promise<string[]> {
    const own = await this.#run.names();
    const taken = new Set(own);
    return [...own, ...(await this.#session.names()).filter((name) => !taken.has(name))];
  }

  async catalog(): Promise<ArtifactCatalogEntry[]> {
    const own = await this.#run.catalog();
    const taken = new Set(own.map((entry) => entry.name));
    const session = (await this.#session.catalog()).filter((entry) => !taken.has(entry.name));
    return [...own, ...session];
  }

  /**
   * Resolves in the run's scope; a `"@name"` the run does not have but the session spilled is
   * copied into the run's scope first (the blob is shared, so nothing is stored twice).
   */
  async resolveReferences(input: unknown): Promise<unknown> {
    try {
      return await this.#run.resolveReferences(input);
    } catch (error) {
      const names = (error as { names?: unknown }).names;
      if (!(error instanceof Error) || error.name !== 'ArtifactNotFoundError') throw error;
      if (!Array.isArray(names) || names.length === 0) throw error;
      const spilled = await Promise.all(names.map((name) => this.#session.get(String(name))));
      if (spilled.some((record) => record === undefined)) throw error;
      for (const [position, record] of spilled.entries()) {
        const { type, value, description, purpose, metadata } = record!;
        await this.#run.put(String(names[position]), {
          type,
          value,
          description,
          purpose,
          metadata,
        });
      }
      return this.#run.resolveReferences(input);
    }
  }

  saveCheckpoint(checkpoint: CheckpointInput): Promise<CheckpointSummary> {
    return this.#run.saveCheckpoint(checkpoint);
  }

  latestCheckpoint(
    runKey: string,
    options?: LoadCheckpointOptions,
  ): Promise<Checkpoint | undefined> {
    return this.#run.latestCheckpoint(runKey, options);
  }

  loadCheckpoint(runKey: string, id: string, options?: LoadCheckpointOptions): Promise<Checkpoint> {
    return this.#run.loadCheckpoint(runKey, id, options);
  }

  listCheckpoints(runKey: string): Promise<CheckpointSummary[]> {
    return this.#run.listCheckpoints(runKey);
  }

  close(): Promise<void> {
    return this.#run.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#run[Symbol.asyncDispose]();
  }
}

function bound(value: number | undefined, name: string): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `@rlm/core: session.memory.${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The characters a value holds in memory: a string's length, else its JSON text's length with
 * each distinct object counted once (a value shared at many places, or a cycle, is held once),
 * so the walk is linear in what the value holds, never in the paths to it.
 */
export function valueChars(value: unknown): number {
  if (typeof value === 'string' || Utf8Text.isInstance(value)) return value.length;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  let chars = 0;
  for (let next = stack.length; next > 0; next = stack.length) {
    const item = stack.pop();
    if (typeof item === 'string') chars += item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean' || typeof item === 'bigint')
      chars += String(item).length;
    else if (item === null) chars += 4;
    else if (typeof item === 'object' && !seen.has(item)) {
      seen.add(item);
      if (Array.isArray(item)) {
        chars += 2 + item.length;
        for (const element of item) stack.push(element);
      } else {
        for (const [key, entry] of Object.entries(item)) {
          chars += key.length + 4;
          stack.push(entry);
        }
        chars += 2;
      }
    }
  }
  return chars;
}
