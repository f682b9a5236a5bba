import { Redis } from 'ioredis';
import type { QueueConnection } from './parse-queue-url.js';
import { redactPassword } from './redact-password.js';
import { UsageError } from '../usage-error.js';

/**
 * Connects to the queue's Redis server the way BullMQ will (TLS, credentials, database) and
 * asks it a `PING`, so that an unreachable server is one line instead of BullMQ's endless
 * reconnecting. Rejects with a {@link UsageError} naming `url` (password hidden) and the cause
 * after a refusal, a database the server does not have, a failed TLS handshake, wrong
 * credentials, or `timeoutMs` (`--connect-timeout`) without an answer.
 */
export async function checkQueueReachable(
  connection: QueueConnection,
  url: string,
  timeoutMs: number,
): Promise<void> {
  const { db, ...rest } = connection;
  const client = new Redis({
    ...rest,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs / 1000} s (--connect-timeout)`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        if (db !== undefined) await client.select(db);
        await client.ping();
      })(),
      timeout,
    ]);
  } catch (error) {
    const thrown = error instanceof Error ? error.message : String(error);
    // ioredis reports a closed connection; the error event before it says why.
    const reason = /connection is closed/i.test(thrown) && lastError ? lastError.message : thrown;
    const tls =
      connection.tls === undefined
        ? ''
        : ' (the URL asks for TLS: if the server does not speak TLS, use redis://)';
    throw new UsageError(
      `cannot reach the queue ${redactPassword(url)}: ${reason}${tls}; start Redis or fix --queue`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
