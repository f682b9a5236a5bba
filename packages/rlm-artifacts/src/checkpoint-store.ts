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
  decodeCheckpointEntry,
  type SerializedBlob,
  decodeCheckpointHead,
  summarizeCheckpoint,
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

/** Transcript messages remembered as stored at most; the memory is cleared when full. */
const maxRememberedMessages = 10_000;

/**
 * Deltas at most between two whole checkpoint entries: a save writes what changed since the
 * previous one, and every `maxDeltaChain + 1`-th save writes the whole state, so that reading
 * the newest checkpoint takes at most this many extra entry reads.
 */
export const maxDeltaChain = 16;

/** A checkpoint's transcript and serialised variables, its base entries applied. */
interface ResolvedCheckpoint {
  readonly transcript: readonly string[];
  readonly serialized: Readonly<Record<string, SerializedBlob>>;
}

/** The last checkpoint this store wrote for a run: the base of the next one. */
interface WrittenCheckpoint extends ResolvedCheckpoint {
  readonly id: string;
  readonly chain: number;
}

/**
 * Run checkpoints. Each run (by `runKey`) has a head entry pointing at its newest checkpoint;
 * each checkpoint points at the one before, so the newest is two reads and the history a walk.
 * A checkpoint is written before the head moves to it: a crash in between leaves the previous
 * checkpoint as the newest, never a half-written one.
 */
export class CheckpointStore {
  readonly #index: KeyvEntries;
  readonly #blobs: BlobStore;
  readonly #lock: KeyedLock;
  /** Inline bytes (base64) this store wrote or read, by digest: what unchanged ones refer to. */
  readonly #inline = new Map<string, string>();
  /** Blob ids of the transcript messages this store wrote, by their JSON. */
  readonly #messageBlobs = new Map<string, string>();
  /**
   * Blob ids of transcript messages by the message object: a transcript is the same message
   * objects step after step (messages are never changed in place), so most are not even
   * turned into JSON again.
   */
  readonly #messageObjects = new WeakMap<object, string>();
  /** The last checkpoint this store wrote, by run key. */
  readonly #written = new Map<string, WrittenCheckpoint>();

  constructor(options: { index: KeyvEntries; blobs: BlobStore; lock: KeyedLock }) {
    this.#index = options.index;
    this.#blobs = options.blobs;
    this.#lock = options.lock;
  }

  async save(input: CheckpointInput): Promise<CheckpointSummary> {
    validate(input);
    const transcript: string[] = [];
    for (const [index, message] of input.transcript.entries()) {
      const known = this.#messageObjects.get(message);
      if (known !== undefined) {
        transcript.push(known);
        continue;
      }
      const json = toJson(message, `transcript message ${index}`);
      // The transcript grows by a message or two a step: the rest is already stored.
      let id = this.#messageBlobs.get(json);
      if (id === undefined) {
        id = (await this.#blobs.storeJson(json)).id;
        if (this.#messageBlobs.size >= maxRememberedMessages) this.#messageBlobs.clear();
        this.#messageBlobs.set(json, id);
      }
      this.#messageObjects.set(message, id);
      transcript.push(id);
    }
    const variables: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.variables)) {
      const ref = await this.#blobs.storeJson(toJson(value, `variable ${JSON.stringify(name)}`));
      variables[name] = ref.id;
    }
    const serialized: Record<string, SerializedBlob> = {};
    let latestInline: Promise<ReadonlyMap<string, string>> | undefined;
    for (const [name, item] of Object.entries(input.serializedVariables ?? {})) {
      if (item.bytes !== undefined && item.bytes.byteLength <= maxInlineBytes) {
        const inline = Buffer.from(
          item.bytes.buffer,
          item.bytes.byteOffset,
          item.bytes.byteLength,
        ).toString('base64');
        this.#rememberInline(item.digest, inline);
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
    const headKey = this.#headKey(input.runKey);
    return this.#lock.run(headKey, async () => {
      const head = await this.#index.read(headKey, decodeCheckpointHead);
      // A committed checkpoint this store wrote is the base: the entry holds what changed since.
      const base = this.#written.get(input.runKey);
      const delta =
        base !== undefined && base.chain < maxDeltaChain && startsWith(transcript, base.transcript)
          ? deltaOf(base, transcript, serialized)
          : undefined;
      const entry: CheckpointEntry = {
        kind: 'rlm.checkpoint',
        version: entryVersion,
        id: randomUUID(),
        runKey: input.runKey,
        sequence: (head?.sequence ?? 0) + 1,
        ...(head === undefined ? {} : { previous: head.id }),
        callId: input.callId,
        iteration: input.iteration,
        timestamp: Date.now(),
        ...(delta ?? { transcript }),
        variableNames: [...input.variableNames],
        variables,
        ...(delta !== undefined || Object.keys(serialized).length === 0 ? {} : { serialized }),
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
      await this.#index.write(this.#entryKey(input.runKey, entry.id), entry);
      const newHead: CheckpointHead = {
        kind: 'rlm.checkpoint-head',
        version: entryVersion,
        id: entry.id,
        sequence: entry.sequence,
      };
      await this.#index.write(headKey, newHead);
      this.#written.set(input.runKey, {
        id: entry.id,
        chain: entry.chain ?? 0,
        transcript,
        serialized,
      });
      return summarizeCheckpoint(entry);
    });
  }

  async latest(
    runKey: string,
    options: LoadCheckpointOptions = {},
  ): Promise<Checkpoint | undefined> {
    const headKey = this.#headKey(runKey);
    const head = await this.#index.read(headKey, decodeCheckpointHead);
    if (head === undefined) return undefined;
    return this.#materialize(await this.#linked(runKey, head.id, headKey), options);
  }

  async load(runKey: string, id: string, options: LoadCheckpointOptions = {}): Promise<Checkpoint> {
    const entry = await this.#entry(runKey, id);
    if (entry === undefined) {
      throw new ArtifactNotFoundError(
        `@rlm/artifacts: run ${JSON.stringify(runKey)} has no checkpoint ${JSON.stringify(id)}`,
        { kind: 'checkpoint', names: [id] },
      );
    }
    return this.#materialize(entry, options);
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
    const resolved = await this.#resolve(entry);
    const transcript = await Promise.all(
      resolved.transcript.map(async (id) => {
        const message = await this.#blobs.loadJson(id, key);
        if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
          const storedKey = this.#index.storedKey(key);
          throw new ArtifactCorruptError(
            `@rlm/artifacts: the checkpoint at key "${storedKey}" refers to blob ${id}, which is not a transcript message`,
            { key: storedKey },
          );
        }
        return message as unknown as Message;
      }),
    );
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
        const storedKey = this.#index.storedKey(key);
        throw new ArtifactCorruptError(
          `@rlm/artifacts: the checkpoint at key "${storedKey}" refers to blob ${blob}, which is missing`,
          { key: storedKey, cause: error },
        );
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

  /** The entry's transcript and serialised variables, its chain of bases applied. */
  async #resolve(entry: CheckpointEntry): Promise<ResolvedCheckpoint> {
    if (entry.base === undefined) {
      return { transcript: entry.transcript, serialized: entry.serialized ?? {} };
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
    if (resolved.transcript.length < baseLength) {
      const storedKey = this.#index.storedKey(key);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the checkpoint at key "${storedKey}" takes ${baseLength} messages of checkpoint ${entry.base}, which has ${resolved.transcript.length}`,
        { key: storedKey },
      );
    }
    const serialized: Record<string, SerializedBlob> = {
      ...resolved.serialized,
      ...entry.serialized,
    };
    for (const name of entry.serializedRemoved ?? []) delete serialized[name];
    return {
      transcript: [...resolved.transcript.slice(0, baseLength), ...entry.transcript],
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

/** Whether `ids` starts with every id of `prefix`. */
function startsWith(ids: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > ids.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (ids[index] !== prefix[index]) return false;
  }
  return true;
}

/** The fields of an entry holding only what changed since `base`. */
function deltaOf(
  base: WrittenCheckpoint,
  transcript: readonly string[],
  serialized: Readonly<Record<string, SerializedBlob>>,
): Pick<
  CheckpointEntry,
  'base' | 'chain' | 'transcriptBaseLength' | 'transcript' | 'serialized' | 'serializedRemoved'
> {
  const changed: Record<string, SerializedBlob> = {};
  for (const [name, item] of Object.entries(serialized)) {
    if (!sameBlob(base.serialized[name], item)) changed[name] = item;
  }
  const removed = Object.keys(base.serialized).filter((name) => !Object.hasOwn(serialized, name));
  return {
    base: base.id,
    chain: base.chain + 1,
    transcriptBaseLength: base.transcript.length,
    transcript: transcript.slice(base.transcript.length),
    ...(Object.keys(changed).length === 0 ? {} : { serialized: changed }),
    ...(removed.length === 0 ? {} : { serializedRemoved: removed }),
  };
}

function sameBlob(a: SerializedBlob | undefined, b: SerializedBlob): boolean {
  if (a === undefined || a.digest !== b.digest) return false;
  return 'blob' in a ? 'blob' in b && a.blob === b.blob : 'inline' in b && a.inline === b.inline;
}
