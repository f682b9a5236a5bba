import { formatErrorLine } from '@rlm/core';
import { randomUUID } from 'node:crypto';
import type {
  Checkpoint,
  CheckpointInput,
  CheckpointSummary,
  LoadCheckpointOptions,
  Message,
} from '@rlm/core';
import type { BlobStore } from './blob-store.js';
import {
  type CheckpointEntry,
  type CheckpointHead,
  checkpointEntryVersion,
  decodeCheckpointEntry,
  decodeCheckpointHead,
  type SerializedBlob,
  summarizeCheckpoint,
  type TranscriptPart,
  transcriptPartsLength,
} from './checkpoint-entry.js';
import { entryVersion } from './entry-fields.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { ArtifactValueError } from './errors/artifact-value-error.js';
import { isPlainObject, toJson } from './json-value.js';
import type { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { keyDigest, sha256Hex } from './sha256.js';

/**
 * Serialised variables up to this size live in the checkpoint entry itself (base64) rather than
 * in a blob of their own, which costs several writes each.
 */
const maxInlineBytes = 4096;

/** Inline values remembered by digest at most; the memory is cleared when full. */
const maxRememberedInline = 10_000;

/**
 * Runs whose last checkpoint a store remembers at most (each holds its transcript's message
 * objects); past that, the run saved longest ago is forgotten and its next save is whole.
 */
const maxRememberedRuns = 64;

/**
 * Deltas at most between two whole checkpoint entries: a save writes what changed since the
 * previous one, and every `maxDeltaChain + 1`-th save writes the whole state, so that reading
 * the newest checkpoint takes at most this many extra entry reads.
 */
export const maxDeltaChain = 16;

/** Where a saved transcript message is stored: its own blob (version 1), or a page's item. */
type MessageRef = string | { readonly page: string; readonly index: number };

/** Where a message of a transcript being written is: stored apart, or in its entry. */
type MessageSource = MessageRef | { readonly message: Readonly<Record<string, unknown>> };

/**
 * A checkpoint's transcript and serialised variables, its base entries applied. The transcript
 * stays in parts (a page's messages as one range) until its pages are read and the ranges
 * checked against them: a damaged entry claiming a billion messages allocates nothing.
 */
interface ResolvedCheckpoint {
  readonly transcript: readonly TranscriptPart[];
  /** How many messages `transcript` claims. */
  readonly length: number;
  readonly serialized: Readonly<Record<string, SerializedBlob>>;
}

/** The last checkpoint this store wrote for a run: the base of the next one. */
interface WrittenCheckpoint {
  readonly id: string;
  readonly sequence: number;
  readonly chain: number;
  /** Its transcript, the very message objects it was given. */
  readonly messages: readonly Message[];
  /**
   * Where each of `messages` is stored apart; `undefined` for one kept only in the entries of
   * the current delta chain (the next whole entry puts it in a page).
   */
  readonly refs: readonly (MessageRef | undefined)[];
  readonly serialized: Readonly<Record<string, SerializedBlob>>;
}

/**
 * Run checkpoints. Each run (by `runKey`) has a head entry pointing at its newest checkpoint;
 * each checkpoint points at the one before, so the newest is two reads and the history a walk.
 * A checkpoint is written before the head moves to it (or with it, in one step, where the store
 * can): a crash in between leaves the previous checkpoint as the newest, never a half-written
 * one.
 */
export class CheckpointStore {
  readonly #index: KeyvEntries;
  readonly #blobs: BlobStore;
  readonly #lock: KeyedLock;
  /** Inline bytes (base64) this store read, by digest: what unchanged ones may refer to. */
  readonly #inline = new Map<string, string>();
  /**
   * Where this store put transcript messages in pages, by the message object: a transcript is
   * the same message objects step after step (messages are never changed in place), so a
   * stored one is not turned into JSON or written again.
   */
  readonly #messageRefs = new WeakMap<object, MessageRef>();
  /** The last checkpoint this store wrote, by run key, the run saved longest ago first. */
  readonly #written = new Map<string, WrittenCheckpoint>();

  constructor(options: { index: KeyvEntries; blobs: BlobStore; lock: KeyedLock }) {
    this.#index = options.index;
    this.#blobs = options.blobs;
    this.#lock = options.lock;
  }

  /**
   * Writes a checkpoint entry, then moves the run's head to it. On SQLite both are one
   * statement, which also checks that the head is still the checkpoint this store wrote last
   * (else the head is read, and the save made after it): in the steady state (a delta) a save
   * is that one statement, the new transcript messages and small variables being in the entry
   * itself. Other stores read the head, write the entry, then the head. A whole entry also
   * writes one page blob holding the messages the deltas before it kept.
   */
  async save(input: CheckpointInput): Promise<CheckpointSummary> {
    validate(input);
    const variables: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.variables)) {
      const ref = await this.#blobs.storeJson(toJson(value, `variable ${JSON.stringify(name)}`));
      variables[name] = ref.id;
    }
    const serialized = await this.#serialized(input);
    const headKey = this.#headKey(input.runKey);
    return this.#lock.run(headKey, async () => {
      // A committed checkpoint this store wrote is the base: the entry holds what changed since.
      const base = this.#written.get(input.runKey);
      const kept = base === undefined ? 0 : sharedPrefix(input.transcript, base.messages);
      // A delta also when the last saved message was replaced (a step's feedback with the next
      // step's status merged in): it keeps the base's other messages and holds the new one.
      const delta =
        base !== undefined && base.chain < maxDeltaChain && kept >= base.messages.length - 1
          ? base
          : undefined;
      const transcript = delta
        ? this.#deltaTranscript(input.transcript, delta, kept)
        : await this.#wholeTranscript(input.transcript, base, kept);
      const entryAfter = (head: { readonly id: string; readonly sequence: number } | undefined) =>
        checkpointEntry(
          input,
          head,
          variables,
          serialized,
          transcript.parts,
          delta && { delta, kept },
        );
      const rows = (entry: CheckpointEntry) =>
        [
          // The entry before the head that points at it (at once, where the store can).
          [this.#entryKey(input.runKey, entry.id), entry],
          [headKey, headOf(entry)],
        ] as const;
      let entry: CheckpointEntry | undefined;
      if (base !== undefined && this.#index.writesConditionally) {
        // The head is most likely still the checkpoint this store wrote last: written in one
        // step with checking that, which saves reading the head first.
        const expected = entryAfter(base);
        if (await this.#index.writeAllIf(rows(expected), { key: headKey, id: base.id })) {
          entry = expected;
        }
      }
      if (entry === undefined) {
        entry = entryAfter(await this.#index.read(headKey, decodeCheckpointHead));
        await this.#index.writeAll(rows(entry));
      }
      this.#written.delete(input.runKey);
      if (this.#written.size >= maxRememberedRuns) {
        this.#written.delete(this.#written.keys().next().value!);
      }
      this.#written.set(input.runKey, {
        id: entry.id,
        sequence: entry.sequence,
        chain: entry.chain ?? 0,
        messages: [...input.transcript],
        refs: transcript.refs,
        serialized,
      });
      return summarizeCheckpoint(entry);
    });
  }

  /**
   * Where each sandbox-serialised variable goes: small ones in the entry (base64), others in
   * a blob; an unchanged one (no bytes) where the newest checkpoint has it.
   */
  async #serialized(input: CheckpointInput): Promise<Record<string, SerializedBlob>> {
    const written = this.#written.get(input.runKey)?.serialized;
    const serialized: Record<string, SerializedBlob> = {};
    let latestInline: Promise<ReadonlyMap<string, string>> | undefined;
    for (const [name, item] of Object.entries(input.serializedVariables ?? {})) {
      if (item.bytes !== undefined && item.bytes.byteLength <= maxInlineBytes) {
        const inline = Buffer.from(
          item.bytes.buffer,
          item.bytes.byteOffset,
          item.bytes.byteLength,
        ).toString('base64');
        serialized[name] = { inline, digest: item.digest };
        continue;
      }
      if (item.bytes !== undefined) {
        // The sandbox hashed these bytes as it serialised them; a load still verifies them.
        const ref = await this.#blobs.storeHashed(item.bytes, item.digest);
        serialized[name] = { blob: ref.id, digest: item.digest };
        continue;
      }
      // Unchanged: its bytes as an earlier checkpoint kept them, inline or in a blob.
      const previous = written?.[name];
      if (previous?.digest === item.digest) {
        serialized[name] = previous;
        continue;
      }
      let inline = this.#inline.get(item.digest);
      if (inline === undefined) {
        latestInline ??= this.#latestInline(input.runKey);
        inline = (await latestInline).get(item.digest);
      }
      if (inline !== undefined) {
        serialized[name] = { inline, digest: item.digest };
        continue;
      }
      const blob = await this.#blobs.findBySha256(item.digest);
      if (blob === undefined) {
        throw new ArtifactValueError(
          `@rlm/artifacts: variable ${JSON.stringify(name)} is marked unchanged, but no stored blob has its digest; save its bytes`,
        );
      }
      serialized[name] = { blob, digest: item.digest };
    }
    return serialized;
  }

  /**
   * A delta's transcript: the messages after the first `kept` (those of the base), each kept in
   * the entry unless stored.
   */
  #deltaTranscript(
    messages: readonly Message[],
    base: WrittenCheckpoint,
    kept: number,
  ): { parts: TranscriptPart[]; refs: (MessageRef | undefined)[] } {
    const parts: TranscriptPart[] = [];
    const refs = base.refs.slice(0, kept);
    for (let index = kept; index < messages.length; index++) {
      const message = messages[index]!;
      const ref = this.#messageRefs.get(message);
      if (ref === undefined) messageJson(message, index);
      appendPart(parts, ref ?? { message: message as unknown as Record<string, unknown> });
      refs.push(ref);
    }
    return { parts, refs };
  }

  /**
   * A whole entry's transcript: the stored messages where they are, the others (new ones, and
   * those the deltas before kept) written together as one new page.
   *
   * @param kept how many first messages are those of `base`.
   */
  async #wholeTranscript(
    messages: readonly Message[],
    base: WrittenCheckpoint | undefined,
    kept: number,
  ): Promise<{ parts: TranscriptPart[]; refs: MessageRef[] }> {
    const refs: (MessageRef | undefined)[] = [];
    const unstored: number[] = [];
    const json: string[] = [];
    for (const [index, message] of messages.entries()) {
      const ref = (index < kept ? base?.refs[index] : undefined) ?? this.#messageRefs.get(message);
      refs.push(ref);
      if (ref !== undefined) continue;
      json.push(messageJson(message, index));
      unstored.push(index);
    }
    if (unstored.length > 0) {
      const page = (await this.#blobs.storeJson(`[${json.join(',')}]`)).id;
      for (const [position, index] of unstored.entries()) {
        const ref = { page, index: position };
        refs[index] = ref;
        this.#messageRefs.set(messages[index]!, ref);
      }
    }
    const stored = refs as MessageRef[];
    const parts: TranscriptPart[] = [];
    for (const ref of stored) appendPart(parts, ref);
    return { parts, refs: stored };
  }

  async latest(
    runKey: string,
    options: LoadCheckpointOptions = {},
  ): Promise<Checkpoint | undefined> {
    return namingRun(runKey, async () => {
      const headKey = this.#headKey(runKey);
      const head = await this.#index.read(headKey, decodeCheckpointHead);
      if (head === undefined) return undefined;
      return this.#materialize(await this.#linked(runKey, head.id, headKey), options);
    });
  }

  async load(runKey: string, id: string, options: LoadCheckpointOptions = {}): Promise<Checkpoint> {
    return namingRun(runKey, async () => {
      const entry = await this.#entry(runKey, id);
      if (entry === undefined) {
        throw new ArtifactNotFoundError(
          `@rlm/artifacts: run ${JSON.stringify(runKey)} has no checkpoint ${JSON.stringify(id)}`,
          { kind: 'checkpoint', names: [id] },
        );
      }
      return this.#materialize(entry, options);
    });
  }

  async list(runKey: string): Promise<CheckpointSummary[]> {
    const headKey = this.#headKey(runKey);
    const head = await this.#index.read(headKey, decodeCheckpointHead);
    const summaries: CheckpointSummary[] = [];
    const seen = new Set<string>();
    let next = head?.id;
    let from = headKey;
    while (next !== undefined) {
      if (seen.has(next)) {
        const key = this.#index.storedKey(from);
        throw new ArtifactCorruptError(
          `@rlm/artifacts: the entry at key "${key}" points back at checkpoint ${next}, making a loop`,
          { key },
        );
      }
      seen.add(next);
      const entry = await this.#linked(runKey, next, from);
      summaries.push(summarizeCheckpoint(entry));
      from = this.#entryKey(runKey, entry.id);
      next = entry.previous;
    }
    return summaries;
  }

  /** The entry `id` that the entry at `fromKey` points to; its absence means damage. */
  async #linked(runKey: string, id: string, fromKey: string): Promise<CheckpointEntry> {
    const entry = await this.#entry(runKey, id);
    if (entry === undefined) {
      const key = this.#index.storedKey(fromKey);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the entry at key "${key}" points at checkpoint ${id}, which is missing`,
        { key },
      );
    }
    return entry;
  }

  async #entry(runKey: string, id: string): Promise<CheckpointEntry | undefined> {
    const key = this.#entryKey(runKey, id);
    const entry = await this.#index.read(key, decodeCheckpointEntry);
    if (entry !== undefined && entry.runKey !== runKey) {
      const storedKey = this.#index.storedKey(key);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the checkpoint at key "${storedKey}" belongs to another run`,
        { key: storedKey },
      );
    }
    return entry;
  }

  async #materialize(entry: CheckpointEntry, options: LoadCheckpointOptions): Promise<Checkpoint> {
    const key = this.#entryKey(entry.runKey, entry.id);
    const damaged = (problem: string, cause?: unknown) => {
      const storedKey = this.#index.storedKey(key);
      return new ArtifactCorruptError(
        `@rlm/artifacts: the checkpoint at key "${storedKey}" ${problem}`,
        { key: storedKey, cause },
      );
    };
    const resolved = await this.#resolve(entry);
    const transcript = await this.#readTranscript(resolved.transcript, key, damaged);
    const variables: Record<string, unknown> = {};
    for (const [name, id] of Object.entries(entry.variables)) {
      variables[name] = await this.#blobs.loadJson(id, key);
    }
    const serializedVariables: Record<string, Uint8Array> = {};
    const serializedDigests: Record<string, string> = {};
    const serializedBlobs: Record<string, string> = {};
    for (const [name, item] of Object.entries(resolved.serialized)) {
      const { digest } = item;
      serializedDigests[name] = digest;
      if ('inline' in item) {
        const bytes = Buffer.from(item.inline, 'base64');
        // Damaged bytes are left out: the variable is then lost, not restored wrong.
        if (sha256Hex(bytes) !== digest) continue;
        this.#rememberInline(digest, item.inline);
        serializedVariables[name] = bytes;
        continue;
      }
      const { blob } = item;
      serializedBlobs[name] = blob;
      if (options.loadSerializedBytes === false) continue;
      try {
        serializedVariables[name] = await this.#blobs.loadBytes(blob);
      } catch (error) {
        if (!ArtifactNotFoundError.isInstance(error)) throw error;
        throw damaged(`refers to blob ${blob}, which is missing`, error);
      }
    }
    return {
      ...summarizeCheckpoint(entry),
      transcript,
      variables,
      serializedVariables,
      serializedDigests,
      serializedBlobs,
      budget: entry.budget,
      metadata: entry.metadata,
    };
  }

  /**
   * The messages of a resolved transcript. Every page is read once and every range taken from
   * it checked first: it must lie inside the page, and no message of a page may be taken twice
   * (no writer does), so the messages returned are at most those stored.
   */
  async #readTranscript(
    parts: readonly TranscriptPart[],
    key: string,
    damaged: (problem: string) => ArtifactCorruptError,
  ): Promise<Message[]> {
    const pages = new Map<string, Promise<unknown>>();
    const readPage = (id: string) => {
      let page = pages.get(id);
      if (page === undefined) {
        page = this.#blobs.loadJson(id, key);
        pages.set(id, page);
      }
      return page;
    };
    const ranges = new Map<string, { start: number; end: number }[]>();
    for (const part of parts) {
      if (typeof part !== 'object' || !('page' in part)) continue;
      const items = await readPage(part.page);
      const held = Array.isArray(items) ? items.length : 0;
      const end = part.start + part.count;
      if (end > held) {
        throw damaged(
          `takes messages ${part.start} to ${end - 1} of blob ${part.page}, which holds ${held}`,
        );
      }
      const taken = ranges.get(part.page) ?? [];
      taken.push({ start: part.start, end });
      ranges.set(part.page, taken);
    }
    for (const [page, taken] of ranges) {
      taken.sort((a, b) => a.start - b.start);
      for (let index = 1; index < taken.length; index++) {
        if (taken[index]!.start < taken[index - 1]!.end) {
          throw damaged(`takes message ${taken[index]!.start} of blob ${page} more than once`);
        }
      }
    }
    const messages: Message[] = [];
    const add = (message: unknown, where: string) => {
      if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
        throw damaged(`refers to ${where}, which is not a transcript message`);
      }
      messages.push(message as unknown as Message);
    };
    for (const part of parts) {
      if (typeof part === 'string') add(await this.#blobs.loadJson(part, key), `blob ${part}`);
      else if ('page' in part) {
        const items = (await readPage(part.page)) as unknown[];
        for (let index = part.start; index < part.start + part.count; index++) {
          add(items[index], `message ${index} of blob ${part.page}`);
        }
      } else add(part.message, 'a message of its own');
    }
    return messages;
  }

  /** The entry's transcript and serialised variables, its chain of bases applied. */
  async #resolve(entry: CheckpointEntry): Promise<ResolvedCheckpoint> {
    if (entry.base === undefined) {
      return {
        transcript: entry.transcript,
        length: transcriptPartsLength(entry.transcript),
        serialized: entry.serialized ?? {},
      };
    }
    const key = this.#entryKey(entry.runKey, entry.id);
    const base = await this.#linked(entry.runKey, entry.base, key);
    const baseLength = entry.transcriptBaseLength ?? 0;
    // Deltas point back, each one step shorter: anything else would loop or run long.
    if ((base.chain ?? 0) !== (entry.chain ?? 0) - 1 || base.sequence >= entry.sequence) {
      const storedKey = this.#index.storedKey(key);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the checkpoint at key "${storedKey}" continues checkpoint ${entry.base}, which is not the delta before it`,
        { key: storedKey },
      );
    }
    const resolved = await this.#resolve(base);
    if (resolved.length < baseLength) {
      const storedKey = this.#index.storedKey(key);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the checkpoint at key "${storedKey}" takes ${baseLength} messages of checkpoint ${entry.base}, which has ${resolved.length}`,
        { key: storedKey },
      );
    }
    const serialized: Record<string, SerializedBlob> = {
      ...resolved.serialized,
      ...entry.serialized,
    };
    for (const name of entry.serializedRemoved ?? []) delete serialized[name];
    return {
      transcript: [...firstMessages(resolved.transcript, baseLength), ...entry.transcript],
      length: baseLength + transcriptPartsLength(entry.transcript),
      serialized,
    };
  }

  #rememberInline(digest: string, inline: string): void {
    if (this.#inline.size >= maxRememberedInline) this.#inline.clear();
    this.#inline.set(digest, inline);
  }

  /**
   * The inline bytes of the run's newest checkpoint, by digest (another process may have
   * written it); empty when it has none or cannot be read (the blobs are looked at then).
   */
  async #latestInline(runKey: string): Promise<ReadonlyMap<string, string>> {
    const found = new Map<string, string>();
    try {
      const headKey = this.#headKey(runKey);
      const head = await this.#index.read(headKey, decodeCheckpointHead);
      const entry = head && (await this.#entry(runKey, head.id));
      const resolved = entry && (await this.#resolve(entry));
      for (const item of Object.values(resolved?.serialized ?? {})) {
        if ('inline' in item) found.set(item.digest, item.inline);
      }
    } catch {
      // A damaged newest checkpoint: the unchanged variable is then looked for among blobs.
    }
    return found;
  }

  #headKey(runKey: string): string {
    return `checkpoint-head:${keyDigest(runKey)}`;
  }

  #entryKey(runKey: string, id: string): string {
    return `checkpoint:${keyDigest(runKey)}:${keyDigest(id)}`;
  }
}

/** Checks a checkpoint input's shape; throws `ArtifactValueError` naming the bad field. */
function validate(input: CheckpointInput): void {
  const invalid = (problem: string) =>
    new ArtifactValueError(`@rlm/artifacts: the checkpoint is invalid: ${problem}`);
  if (!isPlainObject(input)) throw invalid('it must be an object');
  if (typeof input.runKey !== 'string' || input.runKey.length === 0) {
    throw invalid('"runKey" must be a non-empty string');
  }
  if (typeof input.callId !== 'string') throw invalid('"callId" must be a string');
  if (!Number.isSafeInteger(input.iteration) || input.iteration < 0) {
    throw invalid('"iteration" must be a non-negative integer');
  }
  if (!Array.isArray(input.transcript)) throw invalid('"transcript" must be an array of messages');
  if (
    !Array.isArray(input.variableNames) ||
    !input.variableNames.every((name) => typeof name === 'string')
  ) {
    throw invalid('"variableNames" must be an array of strings');
  }
  if (!isPlainObject(input.variables)) throw invalid('"variables" must be a plain object');
  if (input.serializedVariables !== undefined) {
    if (!isPlainObject(input.serializedVariables)) {
      throw invalid('"serializedVariables" must be a plain object when given');
    }
    for (const [name, item] of Object.entries(input.serializedVariables)) {
      if (Object.hasOwn(input.variables, name)) {
        throw invalid(
          `variable ${JSON.stringify(name)} is in both "variables" and "serializedVariables"`,
        );
      }
      if (!isPlainObject(item) || typeof item.digest !== 'string' || item.digest.length === 0) {
        throw invalid(`"serializedVariables.${name}" must have a non-empty "digest" string`);
      }
      if (item.bytes !== undefined && !(item.bytes instanceof Uint8Array)) {
        throw invalid(`"serializedVariables.${name}.bytes" must be a Uint8Array when given`);
      }
    }
  }
  if (!isPlainObject(input.budget)) throw invalid('"budget" must be an object');
  for (const field of ['inputTokens', 'outputTokens', 'modelCalls'] as const) {
    if (!Number.isSafeInteger(input.budget[field]) || input.budget[field] < 0) {
      throw invalid(`"budget.${field}" must be a non-negative integer`);
    }
  }
  for (const field of ['cacheReadTokens', 'cacheWriteTokens', 'unpricedModelCalls'] as const) {
    const count = input.budget[field];
    if (count !== undefined && (!Number.isSafeInteger(count) || count < 0)) {
      throw invalid(`"budget.${field}" must be a non-negative integer when given`);
    }
  }
  const { costUsd } = input.budget;
  if (costUsd !== undefined && (!Number.isFinite(costUsd) || costUsd < 0)) {
    throw invalid('"budget.costUsd" must be a finite number of US dollars >= 0 when given');
  }
  if (!Number.isFinite(input.budget.elapsedMs)) {
    throw invalid('"budget.elapsedMs" must be a finite number of milliseconds');
  }
  if (input.metadata !== undefined && !isPlainObject(input.metadata)) {
    throw invalid('"metadata" must be a plain object when given');
  }
}

/**
 * The entry of a checkpoint saved after `head` (the run's newest, if any); when `of` is given,
 * a delta of `of.delta` keeping its first `of.kept` messages, else whole.
 */
function checkpointEntry(
  input: CheckpointInput,
  head: { readonly id: string; readonly sequence: number } | undefined,
  variables: Readonly<Record<string, string>>,
  serialized: Readonly<Record<string, SerializedBlob>>,
  transcript: readonly TranscriptPart[],
  of: { readonly delta: WrittenCheckpoint; readonly kept: number } | undefined,
): CheckpointEntry {
  return {
    kind: 'rlm.checkpoint',
    version: checkpointEntryVersion,
    id: randomUUID(),
    runKey: input.runKey,
    sequence: (head?.sequence ?? 0) + 1,
    ...(head === undefined ? {} : { previous: head.id }),
    callId: input.callId,
    iteration: input.iteration,
    timestamp: Date.now(),
    ...(of === undefined
      ? { transcript }
      : {
          base: of.delta.id,
          chain: of.delta.chain + 1,
          transcriptBaseLength: of.kept,
          transcript,
          ...serializedDelta(of.delta.serialized, serialized),
        }),
    variableNames: [...input.variableNames],
    variables,
    ...(of !== undefined || Object.keys(serialized).length === 0 ? {} : { serialized }),
    budget: {
      inputTokens: input.budget.inputTokens,
      outputTokens: input.budget.outputTokens,
      cacheReadTokens: input.budget.cacheReadTokens ?? 0,
      cacheWriteTokens: input.budget.cacheWriteTokens ?? 0,
      modelCalls: input.budget.modelCalls,
      ...(input.budget.costUsd === undefined ? {} : { costUsd: input.budget.costUsd }),
      ...(input.budget.unpricedModelCalls === undefined
        ? {}
        : { unpricedModelCalls: input.budget.unpricedModelCalls }),
      elapsedMs: input.budget.elapsedMs,
    },
    metadata: JSON.parse(toJson(input.metadata ?? {}, 'the checkpoint metadata')),
  };
}

/** The run's head pointing at `entry`. */
function headOf(entry: CheckpointEntry): CheckpointHead {
  return {
    kind: 'rlm.checkpoint-head',
    version: entryVersion,
    id: entry.id,
    sequence: entry.sequence,
  };
}

/** A transcript message's JSON; `ArtifactValueError` when it is not a JSON object. */
function messageJson(message: unknown, index: number): string {
  if (!isPlainObject(message)) {
    throw new ArtifactValueError(
      `@rlm/artifacts: the checkpoint is invalid: transcript message ${index} is not a plain object`,
    );
  }
  return toJson(message, `transcript message ${index}`);
}

/**
 * How many first messages of `messages` are those of `saved`: the same objects (the usual
 * case, as messages are never changed in place), or objects with the same JSON.
 */
function sharedPrefix(messages: readonly Message[], saved: readonly Message[]): number {
  const length = Math.min(messages.length, saved.length);
  let index = 0;
  while (
    index < length &&
    (messages[index] === saved[index] || sameJson(messages[index], saved[index]))
  )
    index++;
  return index;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** Appends where a message is to `parts`, extending the last page part when it continues it. */
function appendPart(parts: TranscriptPart[], item: MessageSource): void {
  if (typeof item === 'string' || !('page' in item)) {
    parts.push(item);
    return;
  }
  const last = parts.at(-1);
  if (
    typeof last === 'object' &&
    'page' in last &&
    last.page === item.page &&
    last.start + last.count === item.index
  ) {
    parts[parts.length - 1] = { ...last, count: last.count + 1 };
    return;
  }
  parts.push({ page: item.page, start: item.index, count: 1 });
}

/** The parts that hold the first `count` messages of `parts` (a page's range cut short). */
function firstMessages(parts: readonly TranscriptPart[], count: number): TranscriptPart[] {
  const first: TranscriptPart[] = [];
  let left = count;
  for (const part of parts) {
    if (left === 0) break;
    if (typeof part === 'object' && 'page' in part) {
      const taken = Math.min(part.count, left);
      first.push(taken === part.count ? part : { ...part, count: taken });
      left -= taken;
    } else {
      first.push(part);
      left -= 1;
    }
  }
  return first;
}

/**
 * Runs a load of run `runKey`'s checkpoints; damage it finds is reported naming the run, with
 * what to do.
 */
async function namingRun<T>(runKey: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!ArtifactCorruptError.isInstance(error)) throw error;
    const problem = formatErrorLine(error);
    throw new ArtifactCorruptError(
      `@rlm/artifacts: a checkpoint of run ${JSON.stringify(runKey)} is damaged (${problem}); it cannot be resumed: start the run again without resuming it`,
      { key: error.key, cause: error },
    );
  }
}

/** The serialised-variable fields of a delta: what changed since `base`, and what went. */
function serializedDelta(
  base: Readonly<Record<string, SerializedBlob>>,
  serialized: Readonly<Record<string, SerializedBlob>>,
): Pick<CheckpointEntry, 'serialized' | 'serializedRemoved'> {
  const changed: Record<string, SerializedBlob> = {};
  for (const [name, item] of Object.entries(serialized)) {
    if (!sameBlob(base[name], item)) changed[name] = item;
  }
  const removed = Object.keys(base).filter((name) => !Object.hasOwn(serialized, name));
  return {
    ...(Object.keys(changed).length === 0 ? {} : { serialized: changed }),
    ...(removed.length === 0 ? {} : { serializedRemoved: removed }),
  };
}

function sameBlob(a: SerializedBlob | undefined, b: SerializedBlob): boolean {
  if (a === undefined || a.digest !== b.digest) return false;
  return 'blob' in a ? 'blob' in b && a.blob === b.blob : 'inline' in b && a.inline === b.inline;
}
