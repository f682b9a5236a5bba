import {
  entryVersion,
  expectCount,
  expectEntry,
  expectNumber,
  expectString,
} from './entry-fields.js';
import { keyDigest } from './sha256.js';

/** The lock row of one run (`lease:<digest of runKey>`, in the index): who writes it, and since when. */
export interface LeaseEntry {
  readonly kind: 'rlm.lease';
  readonly version: typeof entryVersion;
  readonly runKey: string;
  /** Random per acquisition: tells two holders in one process apart. */
  readonly token: string;
  readonly pid: number;
  readonly hostname: string;
  /** Epoch milliseconds. */
  readonly acquiredAt: number;
  /** Epoch milliseconds of the holder's latest heartbeat. */
  readonly heartbeatAt: number;
}

export function decodeLeaseEntry(value: unknown): LeaseEntry {
  const entry = expectEntry(value, 'rlm.lease');
  return {
    kind: 'rlm.lease',
    version: entryVersion,
    runKey: expectString(entry, 'runKey'),
    token: expectString(entry, 'token'),
    pid: expectCount(entry, 'pid'),
    hostname: expectString(entry, 'hostname'),
    acquiredAt: expectNumber(entry, 'acquiredAt'),
    heartbeatAt: expectNumber(entry, 'heartbeatAt'),
  };
}

export function leaseKey(runKey: string): string {
  return `lease:${keyDigest('lease', runKey)}`;
}
