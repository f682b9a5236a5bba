import { hasErrorName } from './rlm-error.js';
import { SandboxError } from './sandbox-error.js';

/**
 * A `Sandbox.snapshotVariables` abandoned for an execution (or a change of variables) asked for
 * after it: the snapshot is not taken, and the sandbox keeps what it made for the next one.
 * Nothing failed: the caller takes the next snapshot later.
 */
export class SnapshotPreemptedError extends SandboxError {
  constructor(message = 'the snapshot was preempted by a later execution') {
    super(message);
    this.name = 'SnapshotPreemptedError';
  }

  static override isInstance(error: unknown): error is SnapshotPreemptedError {
    return hasErrorName(error, 'SnapshotPreemptedError');
  }
}
