/** One value of the encoded graph (see the guest kit's `encode`). */
type Item = null | boolean | number | string | readonly [string, ...unknown[]];

/** The JSON the guest kit's `encode` makes: a root item and the objects it refers to. */
export interface EncodedGraph {
  readonly root: Item;
  readonly objects: readonly (readonly [string, ...unknown[]])[];
}

const specialNumbers: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '-0': -0,
};

/**
 * Rebuilds a value the guest encoded, keeping shared and cyclic references as references (a
 * structure shared 60 levels deep stays 61 objects), as a structured clone does.
 */
export function decodeGraph(graph: EncodedGraph): unknown {
  const built: unknown[] = graph.objects.map(([tag, ...rest]) => {
    switch (tag) {
      case 'a':
        return [];
      case 'M':
        return new Map();
      case 'S':
        return new Set();
      case 'D':
        return new Date(rest[0] as number);
      case 'E': {
        const error = new Error(rest[1] as string);
        error.name = rest[0] as string;
        return error;
      }
      default:
        return {};
    }
  });
  const item = (value: Item): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const [tag, payload] = value;
    if (tag === 'r') return built[payload as number];
    if (tag === 'u') return undefined;
    if (tag === 'n') return BigInt(payload as string);
    return specialNumbers[payload as string];
  };
  graph.objects.forEach(([tag, payload], index) => {
    const target = built[index];
    if (tag === 'a') {
      const array = target as unknown[];
      for (const entry of payload as Item[]) array.push(item(entry));
    } else if (tag === 'M') {
      for (const [key, value] of payload as [Item, Item][]) {
        (target as Map<unknown, unknown>).set(item(key), item(value));
      }
    } else if (tag === 'S') {
      for (const entry of payload as Item[]) (target as Set<unknown>).add(item(entry));
    } else if (tag === 'o') {
      for (const [key, value] of payload as [string, Item][]) {
        Object.defineProperty(target, key, {
          value: item(value),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
    }
  });
  return item(graph.root);
}
