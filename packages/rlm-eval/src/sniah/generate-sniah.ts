import { EvalSettingsError } from '../errors/eval-settings-error.js';
import { SeededRandom } from './seeded-random.js';

/** Settings of {@link generateSniah}. */
export interface SniahSettings {
  /** Context lengths in tokens, one group of items each (see {@link parseTokenLengths}). */
  readonly lengths: readonly number[];
  /** Items per length (default 50). */
  readonly n?: number;
  /** The seed: the same seed writes the same dataset, byte for byte (default 1). */
  readonly seed?: number;
}

/** One generated item: its question, its answer, and its haystack as a stream of text. */
export interface SniahItem {
  /** `<length>-<number>`, e.g. `128k-007`. */
  readonly id: string;
  readonly query: string;
  /** The needle's number, as a string of 7 digits. */
  readonly expected: string;
  /** The context's length in tokens (at {@link sniahCharactersPerToken} characters a token). */
  readonly lengthTokens: number;
  /** The context's length in characters. */
  readonly lengthChars: number;
  /** Where the needle sits, as a share of the context (0 = start, 1 = end). */
  readonly depth: number;
  /** The context in pieces of at most about 64 KiB, needle included; call it once. */
  readonly context: () => Iterable<string>;
}

/** Characters per token of a generated context: 4, as the direct baseline estimates. */
export const sniahCharactersPerToken = 4;

const subjects = [
  'The old ferryman',
  'A tired clerk',
  'The gardener',
  'Our neighbour',
  'The river pilot',
  'A young cartographer',
  'The baker',
  'The night porter',
  'A travelling tinker',
  'The archivist',
  'The shepherd',
  'A quiet student',
  'The innkeeper',
  'The weaver',
  'A retired sailor',
];
const verbs = [
  'repaired',
  'painted',
  'counted',
  'carried',
  'described',
  'sketched',
  'folded',
  'measured',
  'polished',
  'borrowed',
  'sorted',
  'mended',
  'inspected',
  'wrapped',
  'weighed',
];
const objects = [
  'the wooden gate',
  'a basket of pears',
  'the lantern',
  'an old map',
  'the copper kettle',
  'a bundle of letters',
  'the garden wall',
  'the town clock',
  'a pair of boots',
  'the fishing nets',
  'a crate of apples',
  'the blue door',
  'the long table',
  'a ledger',
  'the bell rope',
];
const endings = [
  'before the rain came',
  'after supper',
  'without a word',
  'in the morning light',
  'for the third time that week',
  'while the kettle boiled',
  'as the tide turned',
  'near the market square',
  'under a grey sky',
  'with great care',
  'before anyone woke',
  'on the way home',
  'during the long afternoon',
  'beside the harbour',
  'at dusk',
];
const keyAdjectives = [
  'amber',
  'brisk',
  'calm',
  'dusty',
  'eager',
  'faint',
  'gentle',
  'hollow',
  'icy',
  'jolly',
  'keen',
  'lucky',
  'mellow',
  'nimble',
  'odd',
  'proud',
  'quiet',
  'rustic',
  'silent',
  'tidy',
];
const keyNouns = [
  'harbor',
  'meadow',
  'falcon',
  'lantern',
  'orchard',
  'pebble',
  'quarry',
  'ribbon',
  'saddle',
  'thimble',
  'valley',
  'willow',
  'anchor',
  'beacon',
  'candle',
  'dune',
  'ember',
  'fjord',
];

/**
 * Reads lengths such as `8k,128k,1m,10m`: whole numbers of tokens, with `k` (thousand) or `m`
 * (million). Throws {@link EvalSettingsError} for anything else or for a length under 1k.
 */
export function parseTokenLengths(text: string): number[] {
  const lengths = text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(part);
    const value = match
      ? Math.round(
          Number(match[1]) *
            ({ '': 1, k: 1_000, m: 1_000_000 } as const)[match[2]!.toLowerCase() as '' | 'k' | 'm'],
        )
      : Number.NaN;
    if (!Number.isSafeInteger(value) || value < 1_000) {
      throw new EvalSettingsError(
        `@rlm/eval: lengths are token counts of at least 1k such as 8k,128k,1m (got ${JSON.stringify(part.trim())})`,
        { setting: 'lengths' },
      );
    }
    return value;
  });
  return [...new Set(lengths)].sort((a, b) => a - b);
}

/** `8000` as `8k`, `1000000` as `1m`, `1500` as `1.5k`. */
export function formatTokenLength(tokens: number): string {
  if (tokens >= 1_000_000 && tokens % 100_000 === 0) return `${tokens / 1_000_000}m`;
  if (tokens % 100 === 0) return `${tokens / 1_000}k`;
  return String(tokens);
}

/**
 * The synthetic single-needle task of the RLM paper (after RULER's S-NIAH): each context is
 * filler prose with one sentence "The special magic number for <key> is: <7 digits>." at a
 * random depth; the question asks for that number. `n` items for each length, all drawn from
 * `seed`, so the same settings give the same dataset. Contexts are produced piece by piece: a
 * 10m-token context is never held whole.
 */
export function generateSniah(settings: SniahSettings): SniahItem[] {
  const n = settings.n ?? 50;
  const seed = settings.seed ?? 1;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new EvalSettingsError(`@rlm/eval: n must be a positive whole number (got ${n})`, {
      setting: 'n',
    });
  }
  if (!Number.isSafeInteger(seed)) {
    throw new EvalSettingsError(`@rlm/eval: the seed must be a whole number (got ${seed})`, {
      setting: 'seed',
    });
  }
  if (settings.lengths.length === 0) {
    throw new EvalSettingsError('@rlm/eval: give at least one length, e.g. 8k', {
      setting: 'lengths',
    });
  }
  const random = new SeededRandom(seed);
  const width = Math.max(3, String(n).length);
  const items: SniahItem[] = [];
  for (const lengthTokens of settings.lengths) {
    for (let index = 1; index <= n; index++) {
      const key = `${random.pick(keyAdjectives)}-${random.pick(keyNouns)}`;
      const expected = String(1_000_000 + random.below(9_000_000));
      const depth = Math.round(random.next() * 1000) / 1000;
      const haystackSeed = random.below(0x1_0000_0000);
      const lengthChars = lengthTokens * sniahCharactersPerToken;
      const needle = ` The special magic number for ${key} is: ${expected}.`;
      items.push({
        id: `${formatTokenLength(lengthTokens)}-${String(index).padStart(width, '0')}`,
        query: `What is the special magic number for ${key} mentioned in the provided text? Answer with the number only.`,
        expected,
        lengthTokens,
        lengthChars,
        depth,
        context: () => haystack(haystackSeed, lengthChars, needle, depth),
      });
    }
  }
  return items;
}

/** `lengthChars` characters of filler with `needle` after the sentence nearest `depth`. */
function* haystack(
  seed: number,
  lengthChars: number,
  needle: string,
  depth: number,
): Generator<string> {
  const random = new SeededRandom(seed);
  const fillerChars = Math.max(0, lengthChars - needle.length);
  const needleAt = Math.floor(fillerChars * depth);
  let written = 0;
  let placed = false;
  let piece = '';
  while (written < fillerChars) {
    let sentence = `${written === 0 ? '' : ' '}${random.pick(subjects)} ${random.pick(verbs)} ${random.pick(objects)} ${random.pick(endings)}.`;
    if (written + sentence.length > fillerChars)
      sentence = sentence.slice(0, fillerChars - written);
    if (!placed && written + sentence.length > needleAt) {
      piece += needle;
      placed = true;
    }
    piece += sentence;
    written += sentence.length;
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  if (!placed) piece += needle;
  if (piece !== '') yield piece;
}
