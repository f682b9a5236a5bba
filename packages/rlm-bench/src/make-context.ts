import { makeTextCorpus } from './make-text-corpus.js';

/**
 * A flat one-byte string of `length` characters: a 1 MiB corpus repeated (building it word by
 * word at hundreds of megabytes would cost more than what is measured).
 */
export function makeContext(length: number): string {
  const chunk = makeTextCorpus(Math.min(length, 1024 * 1024));
  return Buffer.alloc(length, chunk, 'latin1').toString('latin1');
}
