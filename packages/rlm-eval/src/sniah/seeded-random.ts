/**
 * A deterministic pseudo-random source (32-bit state, SplitMix-style mixing): the same seed
 * gives the same sequence on every machine and Node version. Not for secrets.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x9e3779b9) >>> 0;
    let z = this.#state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 0x1_0000_0000;
  }

  /** A whole number in [0, below). */
  below(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** One element of `list`. */
  pick<T>(list: readonly T[]): T {
    return list[this.below(list.length)]!;
  }
}
