import { RlmError } from '@rlm/core';

/** Who holds a run's lease, as `RunLeaseHeldError.holder` and `RunLease.holder` report it. */
export interface RunLeaseHolder {
  readonly pid: number;
  readonly hostname: string;
  /** Epoch milliseconds. */
  readonly acquiredAt: number;
  /** Epoch milliseconds of the holder's latest heartbeat. */
  readonly heartbeatAt: number;
}

/** Another live process (or another lease in this one) is running the run: one writer per run. */
export class RunLeaseHeldError extends RlmError {
  readonly runKey: string;
  readonly holder: RunLeaseHolder;

  constructor(message: string, options: { runKey: string; holder: RunLeaseHolder }) {
    super(message);
    this.name = 'RunLeaseHeldError';
    this.runKey = options.runKey;
    this.holder = options.holder;
  }

  static override isInstance(error: unknown): error is RunLeaseHeldError {
    return RlmError.isInstance(error) && error.name === 'RunLeaseHeldError';
  }
}
