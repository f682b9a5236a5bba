import { describe, expect, test } from 'vitest';
import { PieceInterner } from './piece-interner.js';

type Adding = 'add' | 'addScanned';

/**
 * Adds the pieces of `text` between spaces, by `add` or by `addScanned` (packing each piece's
 * units as a scan does), and returns what the interner gives back.
 */
function piecesOfBy(text: string, adding: Adding): string[] {
  const interner = new PieceInterner(text);
  let start = 0;
  let high = 0;
  let low = 0;
  let units = 0;
  for (let index = 0; index <= text.length; index++) {
    if (index === text.length || text[index] === ' ') {
      if (adding === 'add') interner.add(start, index);
      else interner.addScanned(start, index, high, low, units);
      start = index + 1;
      high = 0;
      low = 0;
      units = 0;
    } else {
      const code = text.charCodeAt(index);
      if (index - start < 4) high = (high << 8) | code;
      else low = (low << 8) | code;
      units |= code;
    }
  }
  return interner.pieces();
}

/** Eight-unit pieces that differ from `abcdefgh` in one unit, at each place, repeated. */
function oneUnitApart(): string[] {
  const base = 'abcdefgh';
  const variants = [...base].map((_, at) => `${base.slice(0, at)}z${base.slice(at + 1)}`);
  return [...variants, base, ...variants, 'abcdefg', 'bcdefgh', 'abcdefgh'];
}

/** 32-bit FNV-1a over code units: what the interner hashes pieces it cannot pack by. */
function fnv(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return hash;
}

/** Two different strings of `length` units with the same FNV hash (a birthday search). */
function collidingPair(length: number): [string, string] {
  const seen = new Map<number, string>();
  let state = 7;
  for (;;) {
    let text = '';
    for (let index = 0; index < length; index++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      text += String.fromCharCode(0x61 + ((state >>> 16) % 26));
    }
    const other = seen.get(fnv(text));
    if (other !== undefined && other !== text) return [other, text];
    seen.set(fnv(text), text);
  }
}

describe.each<Adding>(['add', 'addScanned'])('PieceInterner.%s', (adding) => {
  const piecesOf = (text: string) => piecesOfBy(text, adding);

  test('tells apart packed pieces one unit apart, at every place', () => {
    const text = oneUnitApart().join(' ');
    expect(piecesOf(text)).toEqual(text.split(' '));
  });

  test('gives the pieces in order: repeated, empty, wide, packed and not', () => {
    const words = Array.from({ length: 10_000 }, (_, index) => `w${(index * 7919) % 600}`);
    const text = [
      '',
      ...words,
      'é😀',
      '',
      'x'.repeat(200),
      'w1',
      'abcd\u0000e',
      'abcde',
      '\u0000abcde',
      'twelve units',
      'twelve units',
      'ÿÿÿÿÿÿÿÿ',
      'ÿÿÿÿÿÿÿĀ',
    ].join(' ');
    expect(piecesOf(text)).toEqual(text.split(' '));
    expect(piecesOf('')).toEqual(['']);
  });

  test('tells apart pieces whose hashes and lengths are equal', () => {
    const [first, second] = collidingPair(12);
    expect(first).not.toBe(second);
    expect(fnv(first)).toBe(fnv(second));
    const text = Array.from({ length: 50 }, (_, index) => (index % 3 ? first : second)).join(' ');
    expect(piecesOf(text)).toEqual(text.split(' '));
  });

  test('stops interning when most pieces are distinct, and stays right', () => {
    const words = Array.from({ length: 20_000 }, (_, index) => `id${index}`);
    const text = [...words, ...words.slice(0, 100)].join(' ');
    expect(piecesOf(text)).toEqual(text.split(' '));
  });

  test('grows its table as distinct pieces come', () => {
    // Distinct pieces only after repeated ones, so interning stays on.
    const repeated = Array.from({ length: 5_000 }, (_, index) => `r${index % 10}`);
    const distinct = Array.from({ length: 300_000 }, (_, index) => `d${index}`);
    const text = [...repeated, ...distinct, ...distinct.slice(0, 1000)].join(' ');
    expect(piecesOf(text)).toEqual(text.split(' '));
  });
});
