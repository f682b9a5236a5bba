import { describe, expect, test } from 'vitest';
import { classifyFailure } from './classify-failure.js';

describe('classifyFailure', () => {
  test.each([
    'TypeError: rows.map is not a function',
    'ReferenceError: csv is not defined',
    "SyntaxError: Unexpected token '}'",
    'Error: expected 2 arguments, got 1',
    'Error: result does not satisfy the deliverable: missing property "rows"',
    'Error: return value does not match the expected schema',
    'RangeError: Maximum call stack size exceeded',
    'something odd happened',
  ])('intrinsic: %s', (message) => {
    expect(classifyFailure(message)).toBe('intrinsic');
  });

  test.each([
    'Error: unexpected format in input line 3',
    'Error: input format changed: expected 4 columns',
    'Error: schema mismatch: field "price" is a string',
    'Error: response does not match the expected schema',
    `SyntaxError: Unexpected token '<', "<!DOCTYPE "... is not valid JSON`,
    'SyntaxError: Unexpected token < in JSON at position 0',
    'SyntaxError: Unexpected end of JSON input',
    'Error: could not parse the feed',
    'Error: failed to parse input',
    'Error: missing required column "date"',
    'Error: unknown field "pubDate2"',
    'Error: malformed CSV on line 9',
  ])('adaptive: %s', (message) => {
    expect(classifyFailure(message)).toBe('adaptive');
  });

  test.each([
    'Error: execution timed out after 30000 ms',
    'TimeoutError: The operation was aborted due to timeout',
    'AbortError: This operation was aborted',
    'Error: 429 Too Many Requests',
    'Error: rate limit exceeded',
    'TypeError: fetch failed',
    'Error: getaddrinfo ENOTFOUND example.com',
    'Error: read ECONNRESET',
    'Error: HTTP 503 upstream',
    'Error: the model is overloaded',
    'Error: socket hang up',
  ])('extrinsic: %s', (message) => {
    expect(classifyFailure(message)).toBe('extrinsic');
  });

  test('reads names, codes and statuses of error objects', () => {
    expect(classifyFailure(Object.assign(new Error('boom'), { code: 'ECONNREFUSED' }))).toBe(
      'extrinsic',
    );
    expect(classifyFailure({ message: 'bad', status: 502 })).toBe('extrinsic');
    expect(classifyFailure({ message: 'bad', statusCode: 429 })).toBe('extrinsic');
    expect(classifyFailure({ message: 'bad', status: 404 })).toBe('intrinsic');
    const abort = new Error('stopped');
    abort.name = 'AbortError';
    expect(classifyFailure(abort)).toBe('extrinsic');
    expect(classifyFailure(new TypeError('x is undefined'))).toBe('intrinsic');
    expect(classifyFailure(null)).toBe('intrinsic');
  });

  test('a timeout while parsing is the outage, not the format', () => {
    expect(classifyFailure('Error: could not parse response: request timed out')).toBe('extrinsic');
  });
});
