import { UsageError } from '../usage-error.js';

/** How BullMQ reaches Redis, from a `--queue` URL. */
export interface QueueConnection {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: object;
}

/**
 * Parses `redis://[user:password@]host[:port][/db]` (`rediss://` for TLS). Throws a
 * {@link UsageError} for anything else.
 */
export function parseQueueUrl(text: string, flag = '--queue'): QueueConnection {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    url = new URL('invalid:');
  }
  const secure = url.protocol === 'rediss:';
  if ((url.protocol !== 'redis:' && !secure) || url.hostname === '') {
    throw new UsageError(
      `${flag} needs a Redis URL such as redis://localhost:6379 (got ${JSON.stringify(text)})`,
    );
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new UsageError(`${flag}: the database after the port must be a number (got ${db})`);
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 6379 : Number(url.port),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db === '' ? {} : { db: Number(db) }),
    ...(secure ? { tls: {} } : {}),
  };
}
