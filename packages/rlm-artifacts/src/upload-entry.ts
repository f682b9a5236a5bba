import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectString,
} from './entry-fields.js';

/**
 * The marker of a blob being written (`upload:<token>`, in the index): written before the
 * first chunk and deleted once the blob's meta is committed, so chunks of a write that failed
 * or was killed can be found and reclaimed.
 */
export interface UploadEntry {
  readonly kind: 'rlm.upload';
  readonly version: typeof entryVersion;
  /** The blob being written. */
  readonly id: string;
  /** The writing process and its host, to tell a live writer from a dead one. */
  readonly pid: number;
  readonly hostname: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
}

export function decodeUploadEntry(value: unknown): UploadEntry {
  const entry = expectEntry(value, 'rlm.upload');
  return {
    kind: 'rlm.upload',
    version: entryVersion,
    id: expectString(entry, 'id'),
    pid: expectCount(entry, 'pid'),
    hostname: expectString(entry, 'hostname'),
    startedAt: expectNumber(entry, 'startedAt'),
  };
}

export function uploadKey(token: string): string {
  return `upload:${token}`;
}
