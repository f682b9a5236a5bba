import type { CheckpointBudget, CheckpointSummary } from '@rlm/core';
import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectObject,
  expectString,
  expectStringArray,
} from './entry-fields.js';
import { isPlainObject } from './json-value.js';

/**
 * The version of the checkpoint entries this package writes. Version 1 entries (each
 * transcript message a blob of its own) are still read.
 */
export const checkpointEntryVersion = 2;

/** The checkpoint entry versions this package reads. */
const readableVersions: readonly number[] = [entryVersion, checkpointEntryVersion];

/**
 * Where some of a checkpoint's transcript messages are stored, in order:
 * - a string: the id of a blob holding one message's JSON (all a version 1 entry has);
 * - `{ page, start, count }`: `count` messages from index `start` of the blob `page`, which
 *   holds a JSON array of messages (a page is written once, when a whole entry is);
 * - `{ message }`: one message kept in the entry itself (a delta's new messages).
 */
export type TranscriptPart =
  | string
  | { readonly page: string; readonly start: number; readonly count: number }
  | { readonly message: Readonly<Record<string, unknown>> };

/** How many messages `parts` hold. */
export function transcriptPartsLength(parts: readonly TranscriptPart[]): number {
  let length = 0;
  for (const part of parts) length += typeof part === 'object' && 'page' in part ? part.count : 1;
  return length;
}

/**
 * A stored checkpoint. Variable values are blob ids and transcript messages are in pages
 * shared with earlier checkpoints, so what did not change is not written again.
 */
export interface CheckpointEntry {
  readonly kind: 'rlm.checkpoint';
  readonly version: typeof entryVersion | typeof checkpointEntryVersion;
  readonly id: string;
  readonly runKey: string;
  readonly sequence: number;
  /** The id of the run's checkpoint saved before this one, if any. */
  readonly previous?: string;
  readonly callId: string;
  readonly iteration: number;
  readonly timestamp: number;
  /**
   * An earlier checkpoint of the same run this one continues (a delta): its first
   * `transcriptBaseLength` messages and its serialised variables are this one's too, but for
   * those `serialized` replaces and `serializedRemoved` drops. Absent: the entry is whole.
   */
  readonly base?: string;
  /** How many deltas lead to this entry from a whole one (0 or absent: whole). */
  readonly chain?: number;
  /** With `base`: how many of the base's messages start this transcript. */
  readonly transcriptBaseLength?: number;
  /** The transcript's messages; with `base`, those after the base's. */
  readonly transcript: readonly TranscriptPart[];
  readonly variableNames: readonly string[];
  /** Variable name to the blob id of its value's JSON. */
  readonly variables: Readonly<Record<string, string>>;
  /**
   * Variable name to the blob of its value serialised by the sandbox, and that value's digest
   * as the sandbox reported it. Absent in checkpoints written before sandboxes serialised.
   */
  readonly serialized?: Readonly<Record<string, SerializedBlob>>;
  /** With `base`: serialised variables of the base this checkpoint no longer has. */
  readonly serializedRemoved?: readonly string[];
  readonly budget: CheckpointBudget;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Where a sandbox-serialised variable is stored: in a blob, or (small ones) in the checkpoint
 * entry itself, as base64.
 */
export type SerializedBlob =
  | { readonly blob: string; readonly digest: string }
  | { readonly inline: string; readonly digest: string };

/** Points at the newest checkpoint of a run. */
export interface CheckpointHead {
  readonly kind: 'rlm.checkpoint-head';
  readonly version: typeof entryVersion;
  readonly id: string;
  readonly sequence: number;
}

export function decodeCheckpointEntry(value: unknown): CheckpointEntry {
  const entry = expectEntry(value, 'rlm.checkpoint', readableVersions);
  const version = entry.version === entryVersion ? entryVersion : checkpointEntryVersion;
  const variables = expectObject(entry, 'variables');
  for (const name of Object.keys(variables)) {
    expectString(variables, name);
  }
  const budget = expectObject(entry, 'budget');
  let serialized: Record<string, SerializedBlob> | undefined;
  if (entry.serialized !== undefined) {
    serialized = {};
    const stored = expectObject(entry, 'serialized');
    for (const name of Object.keys(stored)) {
      const item = expectObject(stored, name);
      const digest = expectString(item, 'digest');
      serialized[name] =
        item.inline === undefined
          ? { blob: expectString(item, 'blob'), digest }
          : { inline: expectString(item, 'inline'), digest };
    }
  }
  return {
    kind: 'rlm.checkpoint',
    version,
    id: expectString(entry, 'id'),
    runKey: expectString(entry, 'runKey'),
    sequence: expectCount(entry, 'sequence'),
    ...(entry.previous === undefined ? {} : { previous: expectString(entry, 'previous') }),
    callId: expectString(entry, 'callId'),
    iteration: expectCount(entry, 'iteration'),
    timestamp: expectNumber(entry, 'timestamp'),
    ...(entry.base === undefined
      ? {}
      : {
          base: expectString(entry, 'base'),
          chain: expectCount(entry, 'chain'),
          transcriptBaseLength: expectCount(entry, 'transcriptBaseLength'),
          ...(entry.serializedRemoved === undefined
            ? {}
            : { serializedRemoved: expectStringArray(entry, 'serializedRemoved') }),
        }),
    transcript:
      version === entryVersion
        ? expectStringArray(entry, 'transcript')
        : expectTranscriptParts(entry, 'transcript'),
    variableNames: expectStringArray(entry, 'variableNames'),
    variables: variables as Record<string, string>,
    ...(serialized === undefined ? {} : { serialized }),
    budget: {
      inputTokens: expectCount(budget, 'inputTokens'),
      outputTokens: expectCount(budget, 'outputTokens'),
      // Checkpoints written before cache tokens and cost were counted have neither.
      cacheReadTokens:
        budget.cacheReadTokens === undefined ? 0 : expectCount(budget, 'cacheReadTokens'),
      cacheWriteTokens:
        budget.cacheWriteTokens === undefined ? 0 : expectCount(budget, 'cacheWriteTokens'),
      modelCalls: expectCount(budget, 'modelCalls'),
      ...(budget.costUsd === undefined ? {} : { costUsd: expectNumber(budget, 'costUsd') }),
      ...(budget.unpricedModelCalls === undefined
        ? {}
        : { unpricedModelCalls: expectCount(budget, 'unpricedModelCalls') }),
      elapsedMs: expectNumber(budget, 'elapsedMs'),
    },
    metadata: expectObject(entry, 'metadata'),
  };
}

function expectTranscriptParts(entry: Record<string, unknown>, field: string): TranscriptPart[] {
  const parts = entry[field];
  if (!Array.isArray(parts)) {
    throw new TypeError(`field "${field}" should be an array of transcript parts`);
  }
  return parts.map((part: unknown, index): TranscriptPart => {
    if (typeof part === 'string') return part;
    const at = `${field}[${index}]`;
    if (!isPlainObject(part)) throw new TypeError(`${at} should be a blob id, a page or a message`);
    if (part.page !== undefined) {
      const start = expectCount(part, 'start');
      const count = expectCount(part, 'count');
      if (count === 0) throw new TypeError(`${at} should hold at least one message`);
      if (!Number.isSafeInteger(start + count)) {
        throw new TypeError(`${at} should end at a safe integer, not ${start} + ${count}`);
      }
      return { page: expectString(part, 'page'), start, count };
    }
    const message = part.message;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      throw new TypeError(`${at} should be a blob id, a page or a message`);
    }
    return { message: message as Record<string, unknown> };
  });
}

export function decodeCheckpointHead(value: unknown): CheckpointHead {
  const entry = expectEntry(value, 'rlm.checkpoint-head');
  return {
    kind: 'rlm.checkpoint-head',
    version: entryVersion,
    id: expectString(entry, 'id'),
    sequence: expectCount(entry, 'sequence'),
  };
}

/** The summary fields of a stored checkpoint. */
export function summarizeCheckpoint(entry: CheckpointEntry): CheckpointSummary {
  return {
    id: entry.id,
    runKey: entry.runKey,
    sequence: entry.sequence,
    callId: entry.callId,
    iteration: entry.iteration,
    timestamp: entry.timestamp,
    transcriptLength: (entry.transcriptBaseLength ?? 0) + transcriptPartsLength(entry.transcript),
    variableNames: entry.variableNames,
  };
}
