const mebibyte = 1024 * 1024;

/** A byte count as people read it: `256 MiB` for whole mebibytes, else `1500 bytes`. */
export function describeBytes(bytes: number): string {
  return bytes >= mebibyte && bytes % mebibyte === 0 ? `${bytes / mebibyte} MiB` : `${bytes} bytes`;
}
