import type { ArtifactCatalogEntry } from '@rlm/core';
import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectObject,
  expectOneOf,
  expectString,
} from './entry-fields.js';

/** A stored record: its catalog entry, metadata, and where its value's JSON is. */
export interface RecordEntry extends ArtifactCatalogEntry {
  readonly kind: 'rlm.record';
  readonly version: typeof entryVersion;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The value's JSON, when small enough to keep inline. */
  readonly valueJson?: string;
  /** Else the id of the blob holding the value's JSON. */
  readonly valueBlob?: string;
}

/** The catalog of one scope: entries in creation order. */
export interface RecordIndex {
  readonly kind: 'rlm.records';
  readonly version: typeof entryVersion;
  readonly entries: readonly ArtifactCatalogEntry[];
}

export function decodeRecordEntry(value: unknown): RecordEntry {
  const entry = expectEntry(value, 'rlm.record');
  const valueJson = entry.valueJson;
  const valueBlob = entry.valueBlob;
  const inline = typeof valueJson === 'string';
  if (inline === (typeof valueBlob === 'string')) {
    throw new TypeError('a record needs exactly one of "valueJson" and "valueBlob" (strings)');
  }
  return {
    kind: 'rlm.record',
    version: entryVersion,
    ...decodeCatalogFields(entry),
    metadata: expectObject(entry, 'metadata'),
    ...(inline ? { valueJson: valueJson as string } : { valueBlob: valueBlob as string }),
  };
}

export function decodeRecordIndex(value: unknown): RecordIndex {
  const entry = expectEntry(value, 'rlm.records');
  if (!Array.isArray(entry.entries)) {
    throw new TypeError('field "entries" should be an array');
  }
  return {
    kind: 'rlm.records',
    version: entryVersion,
    entries: entry.entries.map((item, index) => {
      if (typeof item !== 'object' || item === null) {
        throw new TypeError(`entries[${index}] should be an object`);
      }
      return decodeCatalogFields(item as Record<string, unknown>);
    }),
  };
}

/** One catalog entry stored on its own (a catalog row), checked. */
export function decodeCatalogEntry(value: unknown): ArtifactCatalogEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('a catalog entry should be an object');
  }
  return decodeCatalogFields(value as Record<string, unknown>);
}

/** The catalog fields of a record, as stored in the record and in its scope's index. */
export function catalogFields(entry: ArtifactCatalogEntry): ArtifactCatalogEntry {
  return {
    name: entry.name,
    type: entry.type,
    description: entry.description,
    purpose: entry.purpose,
    timestamp: entry.timestamp,
    valueKind: entry.valueKind,
    valueLength: entry.valueLength,
    size: entry.size,
  };
}

function decodeCatalogFields(entry: Record<string, unknown>): ArtifactCatalogEntry {
  return {
    name: expectString(entry, 'name'),
    type: expectString(entry, 'type'),
    description: expectString(entry, 'description'),
    purpose: expectString(entry, 'purpose'),
    timestamp: expectNumber(entry, 'timestamp'),
    valueKind: expectOneOf(entry, 'valueKind', [
      'string',
      'number',
      'boolean',
      'null',
      'array',
      'object',
    ] as const),
    valueLength: entry.valueLength === undefined ? undefined : expectCount(entry, 'valueLength'),
    size: expectCount(entry, 'size'),
  };
}
