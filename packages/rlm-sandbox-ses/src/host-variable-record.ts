import { Utf8Text } from '@rlm/core';
import type { VariableRecord } from './worker-protocol.js';

/** Bytes of each `Utf8Text` copied into shared memory, when they were not there already. */
const sharedCopies = new WeakMap<Utf8Text, Uint8Array>();

/**
 * The bytes of `text` in a `SharedArrayBuffer`, which `postMessage` shares with the worker
 * instead of copying: the text's own bytes when they are shared already (as the CLI reads a
 * context file), else one copy made on first use and kept while the text lives.
 */
function sharedBytesOf(text: Utf8Text): Uint8Array {
  if (text.bytes.buffer instanceof SharedArrayBuffer) return text.bytes;
  let copy = sharedCopies.get(text);
  if (copy === undefined) {
    copy = new Uint8Array(new SharedArrayBuffer(text.bytes.byteLength));
    copy.set(text.bytes);
    sharedCopies.set(text, copy);
  }
  return copy;
}

/**
 * What the worker receives for a variable the host sets: the value, cloned by `postMessage`;
 * for a `Utf8Text`, its UTF-8 bytes, shared, which the worker decodes (a 50 MiB text crosses in
 * milliseconds, where a string is copied twice).
 */
export function hostVariableRecord(
  name: string,
  value: unknown,
  readOnly: boolean,
): VariableRecord {
  const record = { name, owner: 'host', readOnly, isConst: false } as const;
  return Utf8Text.isInstance(value)
    ? { ...record, value: undefined, utf8: { bytes: sharedBytesOf(value), length: value.length } }
    : { ...record, value };
}
