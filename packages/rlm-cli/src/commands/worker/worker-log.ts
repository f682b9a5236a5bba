import { redactPassword } from '../../queue/redact-password.js';
import { RateLimitedLog } from '../../queue/rate-limited-log.js';

/**
 * What a worker says on stderr: lines as they are, notices rate-limited per cause, and once per
 * Redis server that it refuses writes for want of memory.
 */
export class WorkerLog {
  readonly #stderr: NodeJS.WritableStream;
  readonly #notices: RateLimitedLog;
  /** Redis servers already said to be out of memory. */
  readonly #outOfMemory = new Set<string>();

  constructor(stderr: NodeJS.WritableStream) {
    this.#stderr = stderr;
    this.#notices = new RateLimitedLog((line) => this.line(line), { prefix: 'rlm: worker: ' });
  }

  /** One line, as it is. */
  line(text: string): void {
    this.#stderr.write(`${text}\n`);
  }

  /** A notice, said once per cause every 10 s (see `RateLimitedLog`). */
  report(cause: string, line: string): void {
    this.#notices.report(cause, line);
  }

  /** Prints the counts of the notices still held back. */
  flush(): void {
    this.#notices.flush();
  }

  /** Says once per Redis server that it refuses writes for want of memory. */
  noteOutOfMemory(message: string, url: string, what: string): void {
    if (!/\bOOM\b/.test(message) || this.#outOfMemory.has(url)) return;
    this.#outOfMemory.add(url);
    this.line(
      `rlm: worker: Redis at ${redactPassword(url)} refuses writes: it is out of memory (maxmemory); ${what} cannot be kept until memory is freed: raise maxmemory, free keys, or lower --artifact-ttl (said once)`,
    );
  }
}
