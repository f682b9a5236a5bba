import { expect, test } from 'vitest';
import { readJsonObjectLines } from './read-json-object-lines.js';

const example = '{"id": 1}';

test('reads one object a line, in order, leaving blank lines out', () => {
  const text = '{"id": 1}\r\n\n   \n{"id": "b", "nested": {"x": [1]}}\n';
  expect(readJsonObjectLines(text, example)).toEqual([
    { line: 1, fields: { id: 1 } },
    { line: 4, fields: { id: 'b', nested: { x: [1] } } },
  ]);
});

test.each([
  ['{"id": 1', 'not valid JSON; each line must be one object such as {"id": 1}'],
  ["{'id': 1}", 'not valid JSON; each line must be one object such as {"id": 1}'],
  ['[1, 2]', 'not a JSON object; each line must look like {"id": 1}'],
  ['"text"', 'not a JSON object; each line must look like {"id": 1}'],
  ['null', 'not a JSON object; each line must look like {"id": 1}'],
  ['42', 'not a JSON object; each line must look like {"id": 1}'],
])('%s is a problem of its line, and the next line is still read', (bad, problem) => {
  expect(readJsonObjectLines(`${bad}\n{"id": 2}`, example)).toEqual([
    { line: 1, problem },
    { line: 2, fields: { id: 2 } },
  ]);
});

test('an empty text has no lines', () => {
  expect(readJsonObjectLines('', example)).toEqual([]);
  expect(readJsonObjectLines('\n\n', example)).toEqual([]);
});
