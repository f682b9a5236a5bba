import { createHash, type Hash } from 'node:crypto';

/** Blocks looked back from a breakpoint for an earlier cached prefix, as the API does. */
const lookbackBlocks = 20;

/** Token counts of one request, as the Messages API reports them in `usage`. */
export interface FakeCacheUsage {
  /** Tokens after the last written or read prefix, billed at the full price. */
  readonly inputTokens: number;
  /** Tokens read from the cache. */
  readonly cacheReadTokens: number;
  /** Tokens written to the cache by this request. */
  readonly cacheWriteTokens: number;
}

/** Options of {@link FakePromptCache}. */
export interface FakePromptCacheOptions {
  /** Shortest prefix, in estimated tokens, that is cached. Default 1,024 (the API's for Sonnet). */
  readonly minimumTokens?: number;
}

type JsonObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One block of a request in the API's prefix order, without its `cache_control`. */
interface PrefixBlock {
  readonly tokens: number;
  readonly breakpoint: boolean;
}

/** Tokens of a piece of JSON, estimated as 4 characters a token. */
function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

/**
 * An emulation of the Messages API's prompt cache for the fake server. A request is read as one
 * sequence of blocks in the API's prefix order: tools, system blocks, then every message's
 * content blocks. A block with `cache_control` is a breakpoint: the prefix up to it is written
 * to the cache when it is at least `minimumTokens` long. A later request (same model) reads the
 * longest cached prefix found at its breakpoints or at most 20 blocks before one. The usage
 * reported is then: cache reads, cache writes (from the end of the read up to the last
 * breakpoint written) and the rest as uncached input. Entries never expire.
 */
export class FakePromptCache {
  readonly #minimumTokens: number;
  readonly #cached = new Set<string>();

  constructor(options: FakePromptCacheOptions = {}) {
    this.#minimumTokens = options.minimumTokens ?? 1_024;
  }

  /** Reads and writes the cache for one valid request body; returns its token counts. */
  use(body: JsonObject): FakeCacheUsage {
    const blocks = prefixBlocks(body);
    const hashes: string[] = [];
    const prefixTokens: number[] = [];
    const running: Hash = createHash('sha256').update(String(body.model));
    let tokens = 0;
    for (const block of blocks) {
      running.update(block.key);
      hashes.push(running.copy().digest('hex'));
      tokens += block.tokens;
      prefixTokens.push(tokens);
    }
    const total = tokens;
    let read = 0;
    let lastWritten = -1;
    for (const [index, block] of blocks.entries()) {
      if (!block.breakpoint) continue;
      for (let back = index; back >= 0 && back > index - lookbackBlocks; back -= 1) {
        if (this.#cached.has(hashes[back]!)) {
          read = Math.max(read, prefixTokens[back]!);
          break;
        }
      }
      if (prefixTokens[index]! >= this.#minimumTokens) lastWritten = index;
    }
    let written = 0;
    if (lastWritten >= 0 && prefixTokens[lastWritten]! > read) {
      written = prefixTokens[lastWritten]! - read;
    }
    for (const [index, block] of blocks.entries()) {
      if (block.breakpoint && prefixTokens[index]! >= this.#minimumTokens) {
        this.#cached.add(hashes[index]!);
      }
    }
    return {
      inputTokens: total - read - written,
      cacheReadTokens: read,
      cacheWriteTokens: written,
    };
  }
}

/** Blocks with `cache_control` in a request body: tools, system blocks, message blocks. */
export function countCacheBreakpoints(body: JsonObject): number {
  return prefixBlocks(body).filter((block) => block.breakpoint).length;
}

function prefixBlocks(body: JsonObject): (PrefixBlock & { readonly key: string })[] {
  const blocks: (PrefixBlock & { key: string })[] = [];
  const push = (value: unknown, role: string) => {
    if (!isObject(value)) {
      const key = JSON.stringify([role, value ?? null]);
      blocks.push({ key, tokens: estimateTokens(value), breakpoint: false });
      return;
    }
    const { cache_control: cacheControl, ...rest } = value;
    const key = JSON.stringify([role, rest]);
    blocks.push({ key, tokens: estimateTokens(rest), breakpoint: isObject(cacheControl) });
  };
  if (Array.isArray(body.tools)) for (const tool of body.tools) push(tool, 'tool');
  if (typeof body.system === 'string') push({ type: 'text', text: body.system }, 'system');
  else if (Array.isArray(body.system)) for (const block of body.system) push(block, 'system');
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (!isObject(message)) continue;
      const role = String(message.role);
      if (typeof message.content === 'string') push({ type: 'text', text: message.content }, role);
      else if (Array.isArray(message.content))
        for (const block of message.content) push(block, role);
    }
  }
  return blocks;
}
