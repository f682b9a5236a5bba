import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectOneOf,
  expectString,
} from './entry-fields.js';

/**
 * How a blob's content is kept: text as is, bytes as base64 text, or bytes as they are (in a
 * store with `BinaryChunks`).
 */
export type BlobEncoding = 'text' | 'base64' | 'binary';

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
  /**
   * The upload that wrote the chunks (`chunk:<id>:<upload>:<n>`); absent for blobs written
   * before uploads existed (`chunk:<id>:<n>`).
   */
  readonly upload?: string;
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
    encoding: expectOneOf(entry, 'encoding', ['text', 'base64', 'binary'] as const),
    chunks: expectCount(entry, 'chunks'),
    ...(entry.upload === undefined ? {} : { upload: expectString(entry, 'upload') }),
  };
}

/** The key of chunk `index` of blob `id`, written by `upload` (absent: the older layout). */
export function chunkKey(id: string, upload: string | undefined, index: number): string {
  return upload === undefined ? `chunk:${id}:${index}` : `chunk:${id}:${upload}:${index}`;
}

/** The blob id and upload a chunk key names; `undefined` for a key of another shape. */
export function parseChunkKey(key: string): { id: string; upload: string | undefined } | undefined {
  const match = /^chunk:([0-9a-f]{12}):(?:([0-9a-f]{16}):)?\d+$/.exec(key);
  return match === null ? undefined : { id: match[1]!, upload: match[2] };
}

/** A chunk of encoded content is a plain string. */
export function decodeChunk(value: unknown): string {
  if (typeof value !== 'string') {
    throw new TypeError(`expected a blob chunk (a string), found ${typeof value}`);
  }
  return value;
}
