import { expect, test } from 'vitest';
import { isLoopbackHost } from './is-loopback-host.js';

test.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1'])(
  '%s is loopback',
  (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  },
);

test.each([
  '0.0.0.0',
  '::',
  '192.168.1.10',
  '10.0.0.1',
  'example.com',
  '128.0.0.1',
  '127.0.0.1.example.com',
  '',
])('%s is not loopback', (host) => {
  expect(isLoopbackHost(host)).toBe(false);
});
