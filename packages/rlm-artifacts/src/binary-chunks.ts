/**
 * Raw byte chunks in the blob content store, for stores that can hold bytes as they are: no
 * base64, no JSON around them. Keys are the content store's keys (without its namespace).
 */
export interface BinaryChunks {
  /** Writes `bytes` under `key`, replacing what was there. */
  write(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under `key`; `undefined` when absent or not bytes. */
  read(key: string): Promise<Uint8Array | undefined>;
}
