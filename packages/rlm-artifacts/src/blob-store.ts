import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ArtifactRef } from '@rlm/core';
import type { BinaryChunks } from './binary-chunks.js';
import {
  type BlobEncoding,
  type BlobMeta,
  chunkKey,
  decodeBlobMeta,
  decodeChunk,
  parseChunkKey,
} from './blob-meta.js';
import { entryVersion } from './entry-fields.js';
import { ArtifactConflictError } from './errors/artifact-conflict-error.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { ArtifactValueError } from './errors/artifact-value-error.js';
import { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { mayBeAlive } from './process-liveness.js';
import { sha256Hex } from './sha256.js';
import { textSlices } from '@rlm/core';
import { decodeUploadEntry, type UploadEntry, uploadKey } from './upload-entry.js';

/** What {@link BlobStore.collectGarbage} reclaimed. */
export interface GarbageCollected {
  /** Upload markers of writes that failed or were killed, removed. */
  readonly uploads: number;
  /** Chunk entries no committed blob refers to, removed. */
  readonly chunks: number;
  /** The stored size of those chunks, in bytes. */
  readonly bytes: number;
}

/** Blobs remembered as stored, so storing them again costs no read; cleared when full. */
const maxRemembered = 100_000;

const idPattern = /^[0-9a-f]{12}$/;
const sha256Pattern = /^[0-9a-f]{64}$/;

/**
 * Content-addressed blobs. A write first marks its upload (`upload:<token>`, in the index),
 * then writes the content's chunks under that token (`chunk:<id>:<token>:<n>`, in the content
 * store), then commits the meta entry (`blob:<id>`) naming the token, then drops the marker. So
 * a blob exists once its meta does; a write that fails removes its chunks at once, and one that
 * is killed leaves a marker by which {@link BlobStore.collectGarbage} reclaims them. Loads
 * verify the full SHA-256.
 */
export class BlobStore {
  readonly #index: KeyvEntries;
  readonly #content: KeyvEntries;
  readonly #chunkChars: number;
  readonly #checkSpace: ((bytes: number) => Promise<void>) | undefined;
  readonly #binary: BinaryChunks | undefined;
  readonly #lock = new KeyedLock();
  readonly #remembered = new Map<string, BlobMeta>();

  /**
   * `checkSpace` rejects a write of that many bytes before any of it is written; `binary`, when
   * the content store can hold bytes as they are, stores byte content so (`chunkChars` bytes a
   * chunk) instead of as base64 text.
   */
  constructor(options: {
    index: KeyvEntries;
    content: KeyvEntries;
    chunkChars: number;
    checkSpace?: (bytes: number) => Promise<void>;
    binary?: BinaryChunks;
  }) {
    this.#index = options.index;
    this.#content = options.content;
    this.#chunkChars = options.chunkChars;
    this.#checkSpace = options.checkSpace;
    this.#binary = options.binary;
  }

  async store(content: string | Uint8Array): Promise<ArtifactRef> {
    if (typeof content === 'string' && !isWellFormed(content)) {
      throw new ArtifactValueError(
        '@rlm/artifacts: the text has unpaired surrogates, so it has no UTF-8 form to store; store it as JSON (which escapes them) or as bytes',
      );
    }
    return this.#store(content);
  }

  /**
   * Stores `JSON.stringify` output, which is always well-formed text, without scanning it for
   * unpaired surrogates (a full pass over a large two-byte string).
   */
  storeJson(json: string): Promise<ArtifactRef> {
    return this.#store(json);
  }

  /**
   * Stores bytes whose SHA-256 (lowercase hex) the caller has just computed, without hashing
   * them again (a full pass over a large blob). Only for digests computed from these very
   * bytes: a wrong one is only caught when the blob is loaded (`ArtifactCorruptError`).
   */
  storeHashed(bytes: Uint8Array, sha256: string): Promise<ArtifactRef> {
    return this.#store(bytes, sha256Pattern.test(sha256) ? sha256 : undefined);
  }

  async #store(content: string | Uint8Array, knownSha256?: string): Promise<ArtifactRef> {
    const sha256 = knownSha256 ?? sha256Hex(content);
    const id = sha256.slice(0, 12);
    return this.#lock.run(id, async () => {
      const existing = await this.#committed(id);
      if (existing !== undefined) return this.#existing(existing, sha256);
      // Bytes go as they are where the content store can hold them, else as base64 text.
      const bytes = typeof content === 'string' ? undefined : content;
      const binary = bytes === undefined ? undefined : this.#binary;
      const encoding: BlobEncoding =
        bytes === undefined ? 'text' : binary === undefined ? 'base64' : 'binary';
      const text =
        bytes === undefined ? (content as string) : binary ? '' : bytesOf(bytes).toString('base64');
      await this.#checkSpace?.(
        bytes !== undefined && binary ? bytes.byteLength : Buffer.byteLength(text),
      );
      const upload = randomBytes(8).toString('hex');
      const marker: UploadEntry = {
        kind: 'rlm.upload',
        version: entryVersion,
        id,
        pid: process.pid,
        hostname: hostname(),
        startedAt: Date.now(),
      };
      await this.#index.write(uploadKey(upload), marker);
      let chunks = 0;
      let meta: BlobMeta;
      try {
        if (bytes !== undefined && binary !== undefined) {
          for (let start = 0; start < bytes.byteLength; start += this.#chunkChars) {
            this.#content.assertOpen(chunkKey(id, upload, chunks));
            await binary.write(
              chunkKey(id, upload, chunks),
              bytes.subarray(start, start + this.#chunkChars),
            );
            chunks += 1;
          }
        } else {
          for (const slice of textSlices(text, this.#chunkChars)) {
            await this.#content.write(chunkKey(id, upload, chunks), slice);
            chunks += 1;
          }
        }
        // Another process may have committed the same content meanwhile: keep its blob.
        const committed = await this.#committed(id, { remembered: false });
        if (committed !== undefined) {
          await this.#discardUpload(id, upload, chunks);
          return this.#existing(committed, sha256);
        }
        meta = {
          kind: 'rlm.blob',
          version: entryVersion,
          id,
          sha256,
          size:
            typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength,
          createdAt: Date.now(),
          encoding,
          chunks,
          upload,
        };
        await this.#index.write(metaKey(id), meta);
      } catch (error) {
        // The chunk being written when the store failed may exist too: remove up to it. If the
        // store cannot even delete, the marker stays and collectGarbage reclaims the rest.
        await this.#discardUpload(id, upload, chunks + 1).catch(() => {});
        throw error;
      }
      // Committed: a marker left behind by a failure here is only removed by collectGarbage.
      await this.#index.delete(uploadKey(upload)).catch(() => {});
      this.#remember(meta);
      return refOf(meta);
    });
  }

  /**
   * The meta of the committed blob `id`, to store it no second time. Where entries expire, a
   * blob past half its time to live counts as absent: it is written again, chunks and all, so
   * that what refers to it now lives as long as it does.
   */
  async #committed(
    id: string,
    options: { readonly remembered: boolean } = { remembered: true },
  ): Promise<BlobMeta | undefined> {
    const ttlMs = this.#index.ttlMs;
    if (ttlMs === undefined) {
      return (
        (options.remembered ? this.#known(id) : undefined) ??
        (await this.#index.read(metaKey(id), decodeBlobMeta))
      );
    }
    const found = await this.#index.readWithExpiry(metaKey(id), decodeBlobMeta);
    const fresh = found?.expiresAt === undefined || found.expiresAt - Date.now() >= ttlMs / 2;
    return fresh ? found?.value : undefined;
  }

  /** The ref of a blob already stored with this id; a different SHA-256 is a collision. */
  #existing(existing: BlobMeta, sha256: string): ArtifactRef {
    if (existing.sha256 !== sha256) {
      throw new ArtifactConflictError(
        `@rlm/artifacts: blob id ${existing.id} already holds different content (a SHA-256 prefix collision); the new content was not stored`,
        { key: existing.id },
      );
    }
    this.#remember(existing);
    return refOf(existing);
  }

  /** Deletes the first `chunks` chunks of an upload, then its marker. */
  async #discardUpload(id: string, upload: string, chunks: number): Promise<void> {
    for (let index = 0; index < chunks; index += 1) {
      await this.#content.delete(chunkKey(id, upload, index));
    }
    await this.#index.delete(uploadKey(upload));
  }

  /**
   * Reclaims what failed or killed writes left: upload markers whose writer is gone (a dead
   * process on this host, or older than `staleAfterMs` for any host) and every chunk that no
   * committed blob refers to and no live upload is writing. Committed blobs are never touched.
   * Safe while other processes use the store. Idempotent.
   */
  async collectGarbage(options: { readonly staleAfterMs: number }): Promise<GarbageCollected> {
    const now = Date.now();
    const isLive = (entry: UploadEntry | undefined) =>
      entry !== undefined &&
      now - entry.startedAt < options.staleAfterMs &&
      mayBeAlive(entry.pid, entry.hostname);
    let uploads = 0;
    const markers: string[] = [];
    for await (const { key } of this.#index.keys('upload:')) markers.push(key);
    for (const key of markers) {
      if (isLive(await this.#readUpload(key))) continue;
      if (await this.#index.delete(key)) uploads += 1;
    }
    const candidates: { key: string; size: number }[] = [];
    for await (const stored of this.#content.keys('chunk:')) candidates.push(stored);
    let chunks = 0;
    let bytes = 0;
    for (const { key, size } of candidates) {
      const chunk = parseChunkKey(key);
      if (chunk === undefined) continue;
      if (chunk.upload !== undefined && isLive(await this.#readUpload(uploadKey(chunk.upload)))) {
        continue;
      }
      // Read after the marker: an upload that committed meanwhile is seen here.
      if (await this.#refersTo(chunk.id, chunk.upload)) continue;
      if (await this.#content.delete(key)) {
        chunks += 1;
        bytes += size;
      }
    }
    return { uploads, chunks, bytes };
  }

  /** The upload marker at `key`; a damaged one counts as absent (its writer is unknown). */
  async #readUpload(key: string): Promise<UploadEntry | undefined> {
    try {
      return await this.#index.read(key, decodeUploadEntry);
    } catch (error) {
      if (ArtifactCorruptError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /** Whether the committed meta of blob `id` uses the chunks of `upload`; a damaged meta does. */
  async #refersTo(id: string, upload: string | undefined): Promise<boolean> {
    try {
      const meta = await this.#index.read(metaKey(id), decodeBlobMeta);
      return meta !== undefined && meta.upload === upload;
    } catch (error) {
      if (ArtifactCorruptError.isInstance(error)) return true;
      throw error;
    }
  }

  async load(id: string): Promise<string> {
    const content = await this.#read(id);
    if (typeof content === 'string') return content;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(content);
    } catch (error) {
      throw new ArtifactValueError(
        `@rlm/artifacts: blob ${id} holds bytes that are not UTF-8 text; load it with loadBytes`,
        { cause: error },
      );
    }
  }

  /**
   * Parses blob `id` as JSON for the entry at `ownerKey` that refers to it: a missing blob or
   * invalid JSON is an `ArtifactCorruptError` naming that entry.
   */
  async loadJson(id: string, ownerKey: string): Promise<unknown> {
    let json: string;
    try {
      json = await this.load(id);
    } catch (error) {
      if (!ArtifactNotFoundError.isInstance(error)) throw error;
      throw this.#brokenReference(ownerKey, `it refers to blob ${id}, which is missing`, error);
    }
    try {
      return JSON.parse(json);
    } catch (error) {
      throw this.#brokenReference(ownerKey, `blob ${id} it refers to is not JSON`, error);
    }
  }

  async loadBytes(id: string): Promise<Uint8Array> {
    const content = await this.#read(id);
    return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  }

  /** The id of the committed blob whose full SHA-256 is `sha256` (hex), or `undefined`. */
  async findBySha256(sha256: string): Promise<string | undefined> {
    const id = sha256.slice(0, 12);
    if (!idPattern.test(id)) return undefined;
    const meta = this.#known(id) ?? (await this.#index.read(metaKey(id), decodeBlobMeta));
    return meta?.sha256 === sha256 ? id : undefined;
  }

  async has(id: string): Promise<boolean> {
    if (this.#known(id) !== undefined) return true;
    return idPattern.test(id) && (await this.#index.has(metaKey(id)));
  }

  async list(): Promise<ArtifactRef[]> {
    const refs: ArtifactRef[] = [];
    for await (const [, meta] of this.#index.entries('blob:', decodeBlobMeta)) {
      refs.push(refOf(meta));
    }
    return refs.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** The verified content of blob `id`: text for a text blob, bytes otherwise. */
  async #read(id: string): Promise<string | Uint8Array> {
    const meta = idPattern.test(id)
      ? (this.#known(id) ?? (await this.#index.read(metaKey(id), decodeBlobMeta)))
      : undefined;
    if (meta === undefined) {
      throw new ArtifactNotFoundError(`@rlm/artifacts: no blob with id ${JSON.stringify(id)}`, {
        kind: 'blob',
        names: [id],
      });
    }
    const missing = (index: number) =>
      this.#damaged(id, `chunk ${index} of ${meta.chunks} is missing`);
    let content: string | Uint8Array;
    if (meta.encoding === 'binary') {
      const binary = this.#binary;
      if (binary === undefined) {
        throw this.#damaged(id, 'it was stored as raw bytes, which this store cannot read');
      }
      const chunks = await Promise.all(
        Array.from({ length: meta.chunks }, async (_, index) => {
          const key = chunkKey(id, meta.upload, index);
          this.#content.assertOpen(key);
          const chunk = await binary.read(key);
          if (chunk === undefined) throw missing(index);
          return chunk;
        }),
      );
      content = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
    } else {
      const chunks = await Promise.all(
        Array.from({ length: meta.chunks }, async (_, index) => {
          const chunk = await this.#content.read(chunkKey(id, meta.upload, index), decodeChunk);
          if (chunk === undefined) throw missing(index);
          return chunk;
        }),
      );
      const encoded = chunks.join('');
      content = meta.encoding === 'text' ? encoded : Buffer.from(encoded, 'base64');
    }
    if (sha256Hex(content) !== meta.sha256) {
      throw this.#damaged(id, 'its content no longer matches its SHA-256');
    }
    this.#remember(meta);
    return content;
  }

  #damaged(id: string, reason: string): ArtifactCorruptError {
    const key = this.#index.storedKey(metaKey(id));
    return new ArtifactCorruptError(
      `@rlm/artifacts: blob ${id} (key "${key}") is damaged: ${reason}; delete that key, then store the content again`,
      { key },
    );
  }

  #brokenReference(ownerKey: string, reason: string, cause: unknown): ArtifactCorruptError {
    const key = this.#index.storedKey(ownerKey);
    return new ArtifactCorruptError(
      `@rlm/artifacts: the entry at key "${key}" is damaged: ${reason}`,
      { key, cause },
    );
  }

  /** The remembered meta of a blob this store wrote or read; only while the store is open. */
  #known(id: string): BlobMeta | undefined {
    this.#index.assertOpen(metaKey(id));
    return this.#remembered.get(id);
  }

  #remember(meta: BlobMeta): void {
    if (this.#remembered.size >= maxRemembered) this.#remembered.clear();
    this.#remembered.set(meta.id, meta);
  }
}

function metaKey(id: string): string {
  return `blob:${id}`;
}

function refOf(meta: BlobMeta): ArtifactRef {
  return { id: meta.id, size: meta.size, createdAt: meta.createdAt };
}

function bytesOf(content: Uint8Array): Buffer {
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

/** `String.prototype.isWellFormed` (Node 20+), typed here because TypeScript's ES2023 lib lacks it. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
