const vocabulary = [
  'the',
  'revenue',
  'risk',
  'of',
  'and',
  'supplier',
  'contract',
  'Acme',
  'Globex',
  'Initech',
  'quarter',
  'report',
  'increased',
  'by',
  'percent',
  'in',
  'a',
  'shipment',
  'delayed',
  'audit',
  'compliance',
  'team',
  'for',
  'was',
  'to',
  'market',
  'share',
  'vendor',
  'invoice',
  'paid',
];

/**
 * Deterministic English-like text of exactly `length` characters: words, numbers, dates
 * (`2024-03-17`), e-mail addresses and line breaks, as a model's context would hold.
 */
export function makeTextCorpus(length: number, seed = 1): string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 8;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const roll = next() % 100;
    let word: string;
    if (roll < 3) word = `${2000 + (next() % 25)}-0${1 + (next() % 9)}-${10 + (next() % 18)}`;
    else if (roll < 5) word = `user${next() % 1000}@example.com`;
    else if (roll < 10) word = String(next() % 100_000);
    else word = vocabulary[next() % vocabulary.length] as string;
    const separator = next() % 12 === 0 ? '\n' : ' ';
    parts.push(word, separator);
    size += word.length + 1;
  }
  return parts.join('').slice(0, length);
}
