/**
 * A bounded, side-effect-aware formatter for guest values. It runs inside the worker, never on
 * the host, and never builds more than `maxLength` characters, so formatting a 256 MB string or
 * a million-element array costs what the output keeps.
 */

export interface FormatOptions {
  /** Characters to produce at most; the result ends with `…` when cut. */
  readonly maxLength: number;
  /** Strings at the top level are shown as they are (REPL style) unless this is true. */
  readonly quoteStrings?: boolean;
}

const maxDepth = 4;
const maxItems = 100;
const identifierPattern = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

/** Collects output up to a number of characters and remembers whether anything was cut. */
class Budget {
  readonly parts: string[] = [];
  remaining: number;
  truncated = false;
  constructor(maxLength: number) {
    this.remaining = maxLength;
  }
  get exhausted(): boolean {
    return this.remaining <= 0;
  }
  push(text: string): void {
    if (text.length > this.remaining) {
      this.parts.push(text.slice(0, this.remaining));
      this.remaining = 0;
      this.truncated = true;
      return;
    }
    this.parts.push(text);
    this.remaining -= text.length;
  }
}

function quote(text: string, budget: Budget): void {
  // Quote only what can still be shown, so a huge string costs its visible part.
  if (text.length > budget.remaining) {
    budget.push(JSON.stringify(text.slice(0, budget.remaining)));
    budget.truncated = true;
    return;
  }
  budget.push(JSON.stringify(text));
}

function functionLabel(value: Function): string {
  let name = '';
  try {
    name = typeof value.name === 'string' ? value.name : '';
  } catch {
    // A getter on `name` threw; show the function anonymously.
  }
  const source = Function.prototype.toString.call(value);
  if (source.startsWith('class')) return name ? `[class ${name}]` : '[class]';
  return name ? `[Function ${name}]` : '[Function]';
}

function constructorName(value: object): string | undefined {
  try {
    const prototype = Object.getPrototypeOf(value);
    if (prototype === null) return '[Object: null prototype]';
    if (prototype === Object.prototype) return undefined;
    const maker = prototype.constructor;
    return typeof maker === 'function' && typeof maker.name === 'string'
      ? maker.name || undefined
      : undefined;
  } catch {
    return undefined;
  }
}

function formatKey(key: string): string {
  return identifierPattern.test(key) ? key : JSON.stringify(key);
}

function formatInto(value: unknown, budget: Budget, depth: number, seen: Set<object>): void {
  if (budget.exhausted) {
    budget.truncated = true;
    return;
  }
  switch (typeof value) {
    case 'string':
      quote(value, budget);
      return;
    case 'number':
      budget.push(Object.is(value, -0) ? '-0' : String(value));
      return;
    case 'bigint':
      budget.push(`${value}n`);
      return;
    case 'boolean':
    case 'undefined':
      budget.push(String(value));
      return;
    case 'symbol':
      budget.push(value.toString());
      return;
    case 'function':
      budget.push(functionLabel(value));
      return;
  }
  if (value === null) {
    budget.push('null');
    return;
  }
  const object = value as object;
  if (seen.has(object)) {
    budget.push('[Circular]');
    return;
  }
  seen.add(object);
  try {
    formatObject(object, budget, depth, seen);
  } catch (error) {
    budget.push(`[unformattable: ${describeError(error)}]`);
  } finally {
    seen.delete(object);
  }
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

function formatEntries(
  entries: Iterable<unknown>,
  size: number,
  budget: Budget,
  formatEntry: (entry: unknown) => void,
): void {
  let index = 0;
  for (const entry of entries) {
    if (budget.exhausted) return;
    if (index === maxItems) {
      budget.push(`, ... ${size - maxItems} more`);
      return;
    }
    if (index > 0) budget.push(', ');
    formatEntry(entry);
    index++;
  }
}

function formatObject(object: object, budget: Budget, depth: number, seen: Set<object>): void {
  if (Array.isArray(object)) {
    if (depth >= maxDepth) {
      budget.push(`[Array(${object.length})]`);
      return;
    }
    budget.push('[');
    const shown = Math.min(object.length, maxItems);
    for (let i = 0; i < shown && !budget.exhausted; i++) {
      if (i > 0) budget.push(', ');
      formatInto(object[i], budget, depth + 1, seen);
    }
    if (object.length > maxItems) budget.push(`, ... ${object.length - maxItems} more items`);
    budget.push(']');
    return;
  }
  if (object instanceof Error) {
    budget.push(`[${String(object.name)}: ${String(object.message)}]`);
    return;
  }
  if (object instanceof Date) {
    budget.push(Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString());
    return;
  }
  if (object instanceof RegExp) {
    budget.push(`/${object.source}/${object.flags}`);
    return;
  }
  if (object instanceof Promise) {
    budget.push('[Promise]');
    return;
  }
  if (object instanceof Map) {
    budget.push(`Map(${object.size}) {`);
    if (depth >= maxDepth) {
      budget.push('...}');
      return;
    }
    formatEntries(object, object.size, budget, (entry) => {
      const [key, item] = entry as [unknown, unknown];
      formatInto(key, budget, depth + 1, seen);
      budget.push(' => ');
      formatInto(item, budget, depth + 1, seen);
    });
    budget.push('}');
    return;
  }
  if (object instanceof Set) {
    budget.push(`Set(${object.size}) {`);
    if (depth >= maxDepth) {
      budget.push('...}');
      return;
    }
    formatEntries(object, object.size, budget, (item) => formatInto(item, budget, depth + 1, seen));
    budget.push('}');
    return;
  }
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    const typed = object as unknown as ArrayLike<number | bigint> & { length: number };
    budget.push(`${constructorName(object) ?? 'TypedArray'}(${typed.length}) [`);
    const shown = Math.min(typed.length, maxItems);
    for (let i = 0; i < shown && !budget.exhausted; i++) {
      if (i > 0) budget.push(', ');
      formatInto(typed[i], budget, depth + 1, seen);
    }
    if (typed.length > maxItems) budget.push(`, ... ${typed.length - maxItems} more items`);
    budget.push(']');
    return;
  }
  const name = constructorName(object);
  if (depth >= maxDepth) {
    budget.push(`[${name ?? 'Object'}]`);
    return;
  }
  const keys = Object.keys(object);
  if (name !== undefined) budget.push(`${name} `);
  if (keys.length === 0) {
    budget.push('{}');
    return;
  }
  budget.push('{ ');
  formatEntries(keys, keys.length, budget, (key) => {
    budget.push(`${formatKey(key as string)}: `);
    let item: unknown;
    try {
      item = (object as Record<string, unknown>)[key as string];
    } catch (error) {
      budget.push(`[getter threw: ${describeError(error)}]`);
      return;
    }
    formatInto(item, budget, depth + 1, seen);
  });
  budget.push(' }');
}

/**
 * Formats a guest value for output: strings as they are (or quoted), numbers and other
 * primitives as JavaScript writes them, objects and arrays JSON-ish on one line, with depth,
 * item and length limits and `[Circular]` for cycles. Getters and proxies of guest objects may
 * run (this is guest code, inside the worker); an error they throw is shown, not raised.
 */
export function formatValue(value: unknown, options: FormatOptions): string {
  const { maxLength } = options;
  if (typeof value === 'string' && !options.quoteStrings) {
    return value.length > maxLength ? `${value.slice(0, Math.max(0, maxLength - 1))}…` : value;
  }
  const budget = new Budget(maxLength);
  formatInto(value, budget, 0, new Set());
  const text = budget.parts.join('');
  return budget.truncated ? `${text.slice(0, Math.max(0, maxLength - 1))}…` : text;
}
