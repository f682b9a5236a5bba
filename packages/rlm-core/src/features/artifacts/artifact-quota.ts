import { describeValue } from '../../bridge/describe-value.js';
import { measurePlainData } from '../../bridge/measure-plain-data.js';

/** Per-run limits on what model code may write to the artifact store. */
export interface QuotaSettings {
  /**
   * Bytes that `store()` and host tool outputs may write in one `query()`, the root and all of
   * its children together: a string counts its UTF-8 bytes plus 2, any other value the UTF-8
   * bytes of its JSON text. Default 1 GiB (1,073,741,824). The CLI flag is
   * `--max-artifact-bytes`.
   */
  readonly artifactBytes?: number;
  /**
   * Records that `store()` and host tool outputs may write in one `query()`. Default 10,000.
   * The CLI flag is `--max-artifacts`.
   */
  readonly artifactCount?: number;
}

/** The defaults of {@link QuotaSettings}. */
export const defaultQuotas: Required<QuotaSettings> = {
  artifactBytes: 1024 * 1024 * 1024,
  artifactCount: 10_000,
};

/** Most characters of JSON text a non-string value may become when it is stored. */
const maxStructuredChars = 64 * 1024 * 1024;

/**
 * What one run has written to its artifact store, against its quotas. `reserve` before a write
 * and `cancel` when the write fails, so a refused or failed write costs nothing.
 */
export class ArtifactQuota {
  readonly #limits: Required<QuotaSettings>;
  #bytes = 0;
  #count = 0;

  constructor(limits: Required<QuotaSettings>) {
    this.#limits = limits;
  }

  /** Bytes and records written (reserved) so far. */
  get used(): { readonly bytes: number; readonly count: number } {
    return { bytes: this.#bytes, count: this.#count };
  }

  /**
   * Reserves room for one record holding `value`. Its size is known before anything is
   * stringified: a string by its UTF-8 length; other values are measured first (cycles,
   * bigints, and shared references that would expand past 64 Mi characters are refused).
   *
   * @param usage how model code wrote the call, for the error: `store(name, value)`.
   * @returns the bytes reserved, to give back to {@link cancel} if the write fails.
   * @throws Error written for model code, naming the setting and the CLI flag to raise.
   */
  reserve(value: unknown, usage: string): number {
    const bytes = jsonBytes(value, usage);
    const { artifactBytes, artifactCount } = this.#limits;
    if (this.#count + 1 > artifactCount) {
      throw new Error(
        `${usage}: the run has stored ${this.#count} artifacts, the most allowed (artifacts.quotas.artifactCount is ${artifactCount}; CLI --max-artifacts); load or reuse what is stored`,
      );
    }
    if (this.#bytes + bytes > artifactBytes) {
      throw new Error(
        `${usage}: storing ${bytes} more bytes would pass the run's quota of ${artifactBytes} bytes (${this.#bytes} used; artifacts.quotas.artifactBytes; CLI --max-artifact-bytes)`,
      );
    }
    this.#bytes += bytes;
    this.#count += 1;
    return bytes;
  }

  /** Gives back a reservation whose write failed. */
  cancel(bytes: number): void {
    this.#bytes -= bytes;
    this.#count -= 1;
  }
}

/** UTF-8 bytes of a value's JSON text, computed without building text for a string. */
function jsonBytes(value: unknown, usage: string): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8') + 2;
  const measured = measurePlainData(value, {
    maxNodes: 10_000_000,
    maxChars: maxStructuredChars,
    maxDepth: 1_000,
  });
  if (!measured.ok) {
    throw new Error(
      `${usage} needs plain JSON data; got ${describeValue(value)}: ${measured.problem}`,
    );
  }
  const text = JSON.stringify(value);
  if (text === undefined) {
    throw new Error(`${usage} needs plain JSON data; got ${describeValue(value)}`);
  }
  return Buffer.byteLength(text, 'utf8');
}
