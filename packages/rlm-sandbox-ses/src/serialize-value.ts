import { Deserializer, Serializer } from 'node:v8';

/**
 * The structured clone of `value` as bytes (V8's serialization format, the one `postMessage`
 * uses; typed arrays stay typed arrays). The worker sends its variables' snapshot copies this
 * way: the host keeps the bytes and hands them back to a new worker after a fault, never
 * decoding them itself. Throws a `DataCloneError` for what does not clone (functions, symbols).
 */
export function serializeValue(value: unknown): Uint8Array {
  const serializer = new Serializer();
  serializer.writeHeader();
  serializer.writeValue(value);
  return serializer.releaseBuffer();
}

/** The value {@link serializeValue} made `bytes` of, in the calling thread's realm. */
export function deserializeValue(bytes: Uint8Array): unknown {
  const deserializer = new Deserializer(bytes);
  deserializer.readHeader();
  return deserializer.readValue();
}

/**
 * Whether `bytes` spans the whole of its own `ArrayBuffer`, so that the buffer can be moved to
 * another thread (listed for transfer) rather than copied.
 */
export function ownsBuffer(bytes: Uint8Array): boolean {
  return (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  );
}
