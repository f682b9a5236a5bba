/** Bounds of {@link measurePlainData}. */
export interface PlainDataLimits {
  /** Most values visited, a shared reference counted at each place it appears. */
  readonly maxNodes: number;
  /** Most characters of the JSON text the value would become. */
  readonly maxChars: number;
  /** Deepest nesting of arrays and objects. */
  readonly maxDepth: number;
  /**
   * Also refuse what a JSON round trip would change: non-finite numbers, `undefined`, and
   * objects that are not plain (a Date, a Map, a class instance). Default false.
   */
  readonly strict?: boolean;
}

/** Limits for a guest value the host will turn into JSON text or walk. */
export const defaultPlainDataLimits: PlainDataLimits = {
  maxNodes: 1_000_000,
  maxChars: 64 * 1024 * 1024,
  maxDepth: 1_000,
};

/** What {@link measurePlainData} found: the JSON size, or what is wrong. */
export type PlainDataMeasure =
  | { readonly ok: true; readonly chars: number; readonly nodes: number }
  | { readonly ok: false; readonly problem: string };

/**
 * Measures a guest value as JSON text before anything stringifies or walks it, in work bounded
 * by `limits.maxNodes`: visits each place a value appears (as JSON would write it) with an
 * explicit stack, so neither deep nesting nor shared references can exhaust the stack or the
 * heap. Refuses cycles, bigints, and values over a limit, naming the path (`$.a[2]`). The
 * character count is an upper bound of `JSON.stringify(value).length`, escapes inside strings
 * aside.
 */
export function measurePlainData(
  value: unknown,
  limits: PlainDataLimits = defaultPlainDataLimits,
): PlainDataMeasure {
  const ancestors = new Set<object>();
  const stack: Array<{ value: unknown; path: string; depth: number } | { leave: object }> = [
    { value, path: '$', depth: 0 },
  ];
  let nodes = 0;
  let chars = 0;
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if ('leave' in frame) {
      ancestors.delete(frame.leave);
      continue;
    }
    nodes += 1;
    if (nodes > limits.maxNodes) {
      return {
        ok: false,
        problem: `it has more than ${limits.maxNodes} values (a shared reference counts at each place)`,
      };
    }
    const item = frame.value;
    switch (typeof item) {
      case 'string':
        chars += item.length + 2;
        break;
      case 'number':
        if (limits.strict && !Number.isFinite(item)) {
          return { ok: false, problem: `${frame.path} is ${item}, which JSON cannot hold` };
        }
        chars += Number.isFinite(item) ? String(item).length : 4;
        break;
      case 'boolean':
        chars += item ? 4 : 5;
        break;
      case 'undefined':
        if (limits.strict) {
          return { ok: false, problem: `${frame.path} is undefined, which JSON cannot hold` };
        }
        chars += 4;
        break;
      case 'bigint':
        return { ok: false, problem: `${frame.path} is a bigint, which JSON cannot hold` };
      case 'symbol':
      case 'function':
        return { ok: false, problem: `${frame.path} is a ${typeof item}, which JSON cannot hold` };
      case 'object': {
        if (item === null) {
          chars += 4;
          break;
        }
        if (ancestors.has(item)) {
          return { ok: false, problem: `${frame.path} refers back to itself (a cycle)` };
        }
        if (limits.strict && !isPlainContainer(item)) {
          return { ok: false, problem: `${frame.path} is not a plain object or array` };
        }
        if (frame.depth >= limits.maxDepth) {
          return { ok: false, problem: `it nests deeper than ${limits.maxDepth} levels` };
        }
        ancestors.add(item);
        stack.push({ leave: item });
        const depth = frame.depth + 1;
        if (Array.isArray(item)) {
          chars += 2 + Math.max(0, item.length - 1);
          for (let index = item.length - 1; index >= 0; index -= 1) {
            stack.push({ value: item[index], path: `${frame.path}[${index}]`, depth });
          }
        } else {
          const keys = Object.keys(item);
          chars += 2 + Math.max(0, keys.length - 1);
          for (let index = keys.length - 1; index >= 0; index -= 1) {
            const key = keys[index]!;
            chars += key.length + 3;
            stack.push({
              value: (item as Record<string, unknown>)[key],
              path: `${frame.path}.${key}`,
              depth,
            });
          }
        }
        break;
      }
    }
    if (chars > limits.maxChars) {
      return {
        ok: false,
        problem: `its JSON text would be over ${limits.maxChars} characters (a shared reference is written at each place)`,
      };
    }
  }
  return { ok: true, chars, nodes };
}

/** An array, or an object whose prototype is `Object.prototype` or `null`. */
function isPlainContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
