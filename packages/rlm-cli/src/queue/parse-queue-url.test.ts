import { describe, expect, test } from 'vitest';
import { parseQueueUrl } from './parse-queue-url.js';

describe('parseQueueUrl', () => {
  test('host, port, credentials, database and TLS', () => {
    expect(parseQueueUrl('redis://localhost')).toEqual({ host: 'localhost', port: 6379 });
    expect(parseQueueUrl('rediss://user:p%40ss@queue.example:6380/2')).toEqual({
      host: 'queue.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 2,
      tls: {},
    });
  });

  test.each(['localhost:6379', 'http://localhost:6379', 'redis://', 'redis://h:1/db'])(
    '%s is a usage error',
    (text) => {
      expect(() => parseQueueUrl(text)).toThrow(/--queue/);
    },
  );
});
