import { describe, expect, test } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { codeChecksum } from './code-checksum.js';
import { contractFingerprint } from './contract-fingerprint.js';
import { InvalidToolContractError } from './errors/invalid-tool-contract-error.js';

describe('canonicalJson', () => {
  test('sorts keys at every depth and drops undefined properties', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  test('writes -0 as 0 and escapes strings as JSON does', () => {
    expect(canonicalJson({ n: -0, s: 'a"\n' })).toBe('{"n":0,"s":"a\\"\\n"}');
  });

  test.each([
    ['a function', { f: () => 1 }],
    ['a bigint', { n: 1n }],
    ['NaN', { n: Number.NaN }],
    ['a Date', { d: new Date(0) }],
    ['undefined in an array', { a: [undefined] }],
  ])('rejects %s', (_, value) => {
    expect(() => canonicalJson(value)).toThrow(InvalidToolContractError);
  });

  test('rejects cycles but accepts shared references', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/\$\.self refers back to itself/);
  });
});

describe('contractFingerprint', () => {
  const contract = {
    purpose: 'parse CSV text into rows',
    deliverable: { type: 'array', items: { type: 'object' } },
    acceptance: [{ assert: 'one row per line' }],
    failurePolicy: { onError: 'return_error' },
  };

  test('is a sha256 of the canonical JSON, stable under key order', () => {
    const reordered = {
      failurePolicy: { onError: 'return_error' },
      acceptance: [{ assert: 'one row per line' }],
      deliverable: { items: { type: 'object' }, type: 'array' },
      purpose: 'parse CSV text into rows',
    };
    expect(contractFingerprint(contract)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(contractFingerprint(reordered)).toBe(contractFingerprint(contract));
    expect(contractFingerprint({ ...contract, acceptance: undefined })).toBe(
      contractFingerprint({
        purpose: contract.purpose,
        deliverable: contract.deliverable,
        failurePolicy: contract.failurePolicy,
      }),
    );
  });

  test('changes with any field', () => {
    expect(contractFingerprint({ ...contract, purpose: 'parse TSV' })).not.toBe(
      contractFingerprint(contract),
    );
    expect(contractFingerprint({ ...contract, acceptance: [] })).not.toBe(
      contractFingerprint(contract),
    );
  });
});

describe('codeChecksum', () => {
  test('is a sha256 of the UTF-8 code', () => {
    expect(codeChecksum('')).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(codeChecksum('return 1')).not.toBe(codeChecksum('return 2'));
  });
});
