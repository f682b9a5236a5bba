import { connect } from 'node:net';
import type { QueueConnection } from './parse-queue-url.js';
import { UsageError } from './usage-error.js';

/**
 * Opens and closes a TCP connection to the queue's Redis server, so that an unreachable
 * server is one usage error instead of BullMQ's endless reconnecting. Rejects with a
 * {@link UsageError} naming `url` after `timeoutMs` (default 5 s) or a refusal.
 */
export function checkQueueReachable(
  connection: QueueConnection,
  url: string,
  timeoutMs = 5000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: connection.host, port: connection.port });
    const fail = (reason: string) => {
      socket.destroy();
      reject(
        new UsageError(`cannot reach the queue ${url}: ${reason}; start Redis or fix --queue`),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs / 1000} s`));
    socket.once('error', (error) => fail(error.message));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}
