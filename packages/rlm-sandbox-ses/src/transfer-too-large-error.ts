import { describeBytes } from './describe-bytes.js';

/**
 * A value whose structured clone would pass the sandbox's transfer limit; thrown inside the
 * worker before anything is copied. Its message says what the limit is and how it counts.
 */
export class TransferTooLargeError extends Error {
  /**
   * @param limitBytes the transfer limit
   * @param pendingBytes bytes of pending host calls' arguments, which share the limit
   */
  constructor(limitBytes: number, pendingBytes: number) {
    const pending =
      pendingBytes > 0
        ? `, counting the ${pendingBytes} bytes of arguments of calls still pending (await them first)`
        : '';
    super(
      `over ${describeBytes(limitBytes)} once copied${pending} (a string counts in full at every place it appears, even one shared string referenced many times)`,
    );
    this.name = 'TransferTooLargeError';
  }
}
