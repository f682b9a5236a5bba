import { constants } from 'node:buffer';
import { closeSync, constants as fileConstants, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Utf8Text } from '@rlm/core';
import type { ByteLimit } from './byte-limit.js';
import type { ContextFile } from './context-file.js';
import { ContextLoadError } from '../context-load-error.js';
import { fileSystemError } from './file-system-error.js';

/** What reading one context file gave: its text, or the news that it is not text. */
export type ContextFileContent =
  | { readonly kind: 'text'; readonly text: string }
  | {
      /** A NUL byte in the first {@link binarySniffBytes} bytes, or not valid UTF-8. */
      readonly kind: 'binary';
    }
  | {
      /** Not a regular file any more (replaced by a pipe or a device since the walk). */
      readonly kind: 'special';
    };

/** How many leading bytes are searched for a NUL byte (the amount Git looks at). */
export const binarySniffBytes = 8000;

const maxChunkBytes = 1 << 20;
const streamChunkBytes = 64 * 1024;

/** The file's bytes, counted against `limit` as they arrive. */
async function readBytes(file: ContextFile, limit: ByteLimit): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  try {
    const handle = await open(file.path, 'r');
    try {
      while (true) {
        const chunk = Buffer.allocUnsafe(chunkSize(file.size));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        limit.add(bytesRead, file.path);
        chunks.push(chunk.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (ContextLoadError.isInstance(error)) throw error;
    throw fileSystemError(file.path, error);
  }
  return chunks;
}

function notUtf8Error(file: ContextFile): ContextLoadError {
  return new ContextLoadError(
    `${file.path} is not valid UTF-8 text; convert it to UTF-8 or leave it out of the context`,
    { path: file.path },
  );
}

function tooLongError(file: ContextFile, cause?: unknown): ContextLoadError {
  return new ContextLoadError(
    `${file.path} is too large for one JavaScript string; split it into parts and load them with --context-dir`,
    { path: file.path, cause },
  );
}

/**
 * Reads one file named by the user (a regular file, a pipe, a device) as strict UTF-8 text,
 * counting its bytes against `limit` as they arrive. A leading byte order mark is dropped.
 * Invalid UTF-8 and every other failure reject with a one-line {@link ContextLoadError}.
 */
export async function readContextFile(file: ContextFile, limit: ByteLimit): Promise<string> {
  const chunks = await readBytes(file, limit);
  const text = decodeUtf8(joinChunks(chunks), file);
  if (text === undefined) throw notUtf8Error(file);
  return text;
}

/**
 * Reads one file as {@link readContextFile} does, but keeps it as its bytes, in shared memory,
 * without decoding them: a `Utf8Text`, which the SES sandbox receives shared (not copied) and
 * decodes itself.
 */
export async function readContextFileAsUtf8Text(
  file: ContextFile,
  limit: ByteLimit,
): Promise<Utf8Text> {
  const chunks = await readBytes(file, limit);
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const bytes = new Uint8Array(new SharedArrayBuffer(total));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  const text = Utf8Text.fromBytes(bytes);
  if (text === undefined) throw notUtf8Error(file);
  if (text.length > constants.MAX_STRING_LENGTH) throw tooLongError(file);
  return text;
}

/**
 * Reads one regular file found by a directory walk, synchronously (for small files several
 * times faster than the promise API; callers yield between files). A file with a NUL byte among
 * its first 8000 bytes (read no further) or not valid UTF-8 is `binary`, and its bytes are not
 * counted against `limit`; one that is no longer a regular file is `special` (it is opened
 * non-blocking, so a pipe put in its place cannot hang the read: it reads as empty, or is
 * `special` while its writer has written nothing; `file.size` from the walk
 * sizes the reads). Other failures throw a
 * one-line {@link ContextLoadError}.
 */
export function readWalkedFileSync(file: ContextFile, limit: ByteLimit): ContextFileContent {
  let descriptor: number | undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    descriptor = openSync(file.path, fileConstants.O_RDONLY | fileConstants.O_NONBLOCK);
    while (true) {
      const chunk = Buffer.allocUnsafe(chunkSize(file.size));
      const bytesRead = readSync(descriptor, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const read = chunk.subarray(0, bytesRead);
      if (total < binarySniffBytes && read.subarray(0, binarySniffBytes - total).includes(0)) {
        limit.release(total);
        return { kind: 'binary' };
      }
      limit.add(bytesRead, file.path);
      total += bytesRead;
      chunks.push(read);
    }
  } catch (error) {
    if (ContextLoadError.isInstance(error)) throw error;
    // A pipe put in the file's place since the walk has nothing to read yet.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return { kind: 'special' };
    throw fileSystemError(file.path, error);
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  const text = decodeUtf8(joinChunks(chunks, total), file);
  if (text !== undefined) return { kind: 'text', text };
  limit.release(total);
  return { kind: 'binary' };
}

/**
 * Whether the file has a NUL byte among its first {@link binarySniffBytes} bytes. Reads those
 * bytes only, synchronously and non-blocking.
 */
export function startsLikeBinarySync(file: ContextFile): boolean {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file.path, fileConstants.O_RDONLY | fileConstants.O_NONBLOCK);
    const head = Buffer.allocUnsafe(binarySniffBytes);
    const bytesRead = readSync(descriptor, head, 0, head.length, null);
    return head.subarray(0, bytesRead).includes(0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return false;
    throw fileSystemError(file.path, error);
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** One byte more than the expected size, so that one read sees the end of most files. */
function chunkSize(size: number): number {
  return size > 0 ? Math.min(size + 1, maxChunkBytes) : streamChunkBytes;
}

function joinChunks(chunks: readonly Buffer[], total?: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Strict UTF-8 (a leading byte order mark dropped), or `undefined` for invalid UTF-8. Throws a
 * {@link ContextLoadError} when the text is too long for one JavaScript string.
 */
function decodeUtf8(bytes: Buffer, file: ContextFile): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      return undefined;
    }
    throw tooLongError(file, error);
  }
}
