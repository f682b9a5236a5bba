import { describeBytes } from './describe-bytes.js';

/**
 * A value whose structured clone would pass the sandbox's transfer limit; thrown inside the
 * worker before anything is copied. Its message says what the limit is and how it counts.
 */
export class TransferTooLargeError extends Error {
  constructor(limitBytes: number) {
    super(
      `over ${describeBytes(limitBytes)} once copied (a string counts in full at every place it appears, even one shared string referenced many times)`,
    );
    this.name = 'TransferTooLargeError';
  }
}
