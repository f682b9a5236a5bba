import { describe, expect, it } from 'vitest';
import { describeVariable, makeVariableDescriber, maxPreviewChars } from './describe-variable.js';

const preview = (value: unknown, maxChars: number) =>
  String(JSON.stringify(value)).slice(0, maxChars);

describe('describeVariable', () => {
  it('gives each kind of value its type and size', () => {
    const described = (value: unknown) => {
      const { type, size } = describeVariable('x', value, preview);
      return [type, size];
    };
    expect(described('four')).toEqual(['string', 4]);
    expect(described([1, 2, 3])).toEqual(['array', 3]);
    expect(described(new Map([[1, 2]]))).toEqual(['map', 1]);
    expect(described(new Set([1, 2]))).toEqual(['set', 2]);
    expect(described({ a: 1, b: 2 })).toEqual(['object', 2]);
    expect(described(null)).toEqual(['null', 0]);
    expect(described(7)).toEqual(['number', 0]);
    expect(described(undefined)).toEqual(['undefined', 0]);
    expect(described(() => 1)).toEqual(['function', 0]);
  });

  it('counts a text by its own length when only its head is given, and bounds the preview', () => {
    const seen: number[] = [];
    const info = describeVariable(
      'text',
      'head',
      (value, maxChars) => {
        seen.push(maxChars);
        return String(value);
      },
      1_000_000,
    );
    expect(info).toEqual({ name: 'text', type: 'string', size: 1_000_000, preview: 'head' });
    expect(seen).toEqual([maxPreviewChars]);
  });

  it('shows a hostile proxy with what is known, and an unprintable value as such', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    const info = describeVariable('p', hostile, () => {
      throw new Error('no preview');
    });
    expect(info).toEqual({ name: 'p', type: 'object', size: 0, preview: '[unprintable]' });
  });

  it('is self-contained: its source, evaluated alone, describes as it does', () => {
    const rebuilt = new Function(
      `return (${String(makeVariableDescriber)})`,
    )() as typeof makeVariableDescriber;
    const describeHere = rebuilt({ isArray: Array.isArray, keys: Object.keys, Map, Set });
    expect(describeHere('m', new Map([[1, 1]]), preview)).toEqual(
      describeVariable('m', new Map([[1, 1]]), preview),
    );
  });
});
