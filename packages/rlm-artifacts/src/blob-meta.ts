import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectOneOf,
  expectString,
} from './entry-fields.js';

/** How a blob's content is kept: text as is, bytes as base64. */
export type BlobEncoding = 'text' | 'base64';

/** The stored description of one blob; written after its chunks, so it marks the blob complete. */
export interface BlobMeta {
  readonly kind: 'rlm.blob';
  readonly version: typeof entryVersion;
  readonly id: string;
  /** The full SHA-256 (64 hex): guards against id-prefix collisions and damaged content. */
  readonly sha256: string;
  /** Bytes. */
  readonly size: number;
  readonly createdAt: number;
  readonly encoding: BlobEncoding;
  /** Chunk entries holding the encoded content, in order. */
  readonly chunks: number;
}

export function decodeBlobMeta(value: unknown): BlobMeta {
  const entry = expectEntry(value, 'rlm.blob');
  return {
    kind: 'rlm.blob',
    version: entryVersion,
    id: expectString(entry, 'id'),
    sha256: expectString(entry, 'sha256'),
    size: expectCount(entry, 'size'),
    createdAt: expectNumber(entry, 'createdAt'),
    encoding: expectOneOf(entry, 'encoding', ['text', 'base64'] as const),
    chunks: expectCount(entry, 'chunks'),
  };
}

/** A chunk of encoded content is a plain string. */
export function decodeChunk(value: unknown): string {
  if (typeof value !== 'string') {
    throw new TypeError(`expected a blob chunk (a string), found ${typeof value}`);
  }
  return value;
}
