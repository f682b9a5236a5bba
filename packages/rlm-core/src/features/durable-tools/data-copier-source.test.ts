import { createContext, runInContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { dataCopierSource } from './data-copier-source.js';

type Copy = (value: unknown, what: string) => unknown;

/** The copier made in a realm of its own, and that realm's intrinsics. */
function copierInNewRealm(): {
  copy: Copy;
  realm: Record<string, unknown>;
  run: (code: string) => unknown;
} {
  const context = createContext({});
  const run = (code: string) => runInContext(code, context);
  const copy = run(dataCopierSource) as Copy;
  return { copy, realm: run('globalThis') as Record<string, unknown>, run };
}

describe('dataCopierSource', () => {
  test('copies data into its own realm: no object of the copy belongs to the source realm', () => {
    const { copy, realm } = copierInNewRealm();
    const shared = { s: 1 };
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const value = {
      list: [1, 'two', undefined, 3n],
      pair: [shared, shared],
      cycle,
      map: new Map<unknown, unknown>([['k', shared]]),
      set: new Set([1, 2]),
      when: new Date(0),
      error: new RangeError('out of range'),
    };
    const copied = copy(value, 'argument 1') as typeof value;
    const realmObject = realm.Object as ObjectConstructor;
    expect(Object.getPrototypeOf(copied)).toBe(realmObject.prototype);
    expect(copied).not.toBe(value);
    expect(copied.list).toEqual([1, 'two', undefined, 3n]);
    expect(Object.getPrototypeOf(copied.list)).toBe((realm.Array as ArrayConstructor).prototype);
    expect(copied.pair[0]).toBe(copied.pair[1]);
    expect(copied.cycle.self).toBe(copied.cycle);
    expect(copied.map.get('k')).toBe(copied.pair[0]);
    expect(copied.map instanceof (realm.Map as MapConstructor)).toBe(true);
    expect([...copied.set]).toEqual([1, 2]);
    expect(copied.when.getTime()).toBe(0);
    expect(copied.error instanceof (realm.RangeError as RangeErrorConstructor)).toBe(true);
    expect(copied.error.message).toBe('out of range');
    const reached = (copied as unknown as { constructor: { constructor: FunctionConstructor } })
      .constructor.constructor;
    expect(reached).toBe(realm.Function);
  });

  test('runs no getter or method of the value, and refuses functions and symbols by name', () => {
    const { copy } = copierInNewRealm();
    let ran = 0;
    class Point {
      x = 1;
      get y() {
        ran++;
        return 2;
      }
      toJSON() {
        ran++;
        return 'coerced';
      }
    }
    const withGetter = Object.defineProperty({ a: 1 }, 'hidden', {
      enumerable: true,
      get: () => {
        ran++;
        return 'secret';
      },
    });
    expect(copy(new Point(), 'argument 1')).toEqual({ x: 1 });
    expect(copy(withGetter, 'argument 2')).toEqual({ a: 1 });
    expect(ran).toBe(0);
    expect(() => copy({ callback: () => 1 }, 'argument 3')).toThrow(
      'argument 3 must be plain data: it holds a function',
    );
    expect(() => copy([Symbol('s')], 'the result')).toThrow('the result must be plain data');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => copy({ proxy }, 'argument 4')).toThrow(/^argument 4 cannot be copied \(.*revoked/);
  });

  test('keeps its intrinsics: setters planted on prototypes of its realm later see nothing', () => {
    const { copy, realm, run } = copierInNewRealm();
    const seen: unknown[] = [];
    realm.seen = seen;
    run(
      `Object.defineProperty(Array.prototype, '0', { set(value) { seen.push(value); }, configurable: true });
       Map.prototype.set = function () { seen.push('set'); return this; };
       Object.getOwnPropertyDescriptor = () => ({ value: 'forged', enumerable: true });`,
    );
    const copied = copy({ list: [{ deep: 1 }], map: new Map([['k', 1]]) }, 'argument 1') as {
      list: { deep: number }[];
      map: Map<string, number>;
    };
    expect(copied.list[0]?.deep).toBe(1);
    expect(copied.map.get('k')).toBe(1);
    expect(seen).toEqual([]);
  });
});
