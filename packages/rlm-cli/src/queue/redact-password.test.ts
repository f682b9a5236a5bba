import { expect, test } from 'vitest';
import { redactPassword } from './redact-password.js';

test('the password of a URL is hidden; the rest stays', () => {
  expect(redactPassword('redis://user:hunter2@127.0.0.1:6379/2')).toBe(
    'redis://user:***@127.0.0.1:6379/2',
  );
  expect(redactPassword('rediss://:hunter2@host:6380')).toBe('rediss://:***@host:6380');
  expect(redactPassword('redis://host:6379')).toBe('redis://host:6379');
  expect(redactPassword('redis://user@host:6379')).toBe('redis://user@host:6379');
});
