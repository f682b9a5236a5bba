/**
 * The variables of the worker's compartment: one cell each, shared by every execution that
 * names it, mirrored on the global object as an accessor (for `eval`, `globalThis.x`, late
 * lookups), with who owns it and whether it may be written.
 */
import { isIdentifierName } from './is-identifier-name.js';
import { messageOf } from './message-of.js';
import { PendingTexts } from './pending-texts.js';
import type { NameKind } from './rewrite-code.js';
import { deserializeCheckpointBytes } from './serialize-in-pieces.js';
import type { VariableRecord } from './worker-protocol.js';

/** One variable's storage, shared by every execution that uses it. */
export interface Cell {
  v: unknown;
}

export interface VariableMeta {
  /** `fixed`: a host function, `print` or `console`; never listed, never writable. */
  owner: 'model' | 'host' | 'fixed';
  readOnly: boolean;
  isConst: boolean;
  /** The value the host set last, to skip snapshotting what the host can restore itself. */
  hostValue?: unknown;
}

/** A variable model code can see in a listing or a snapshot: not a fixed name. */
export interface ListedVariable {
  readonly name: string;
  readonly meta: VariableMeta;
  readonly cell: Cell | undefined;
}

/** Told of every variable the host sets (see `RecoverySnapshot`). */
export interface SetObserver {
  variableSet(name: string, owner: VariableMeta['owner'], value: unknown): void;
}

export class GuestVariables {
  readonly #global: Record<PropertyKey, unknown>;
  readonly #cells = new Map<string, Cell>();
  readonly #meta = new Map<string, VariableMeta>();
  /** The global object's own names once set up: built-ins and powers. */
  #baseline = new Set<string>();
  /** Texts the host set as bytes, decoded when first read or once the worker idles. */
  readonly pendingTexts = new PendingTexts();
  #observer: SetObserver | undefined;

  constructor(global: Record<PropertyKey, unknown>) {
    this.#global = global;
  }

  /** Who to tell of the variables the host sets. */
  observe(observer: SetObserver): void {
    this.#observer = observer;
  }

  /**
   * Takes the global object's own names now as its built-ins, and fixes the shared intrinsics
   * (JSON, Math, Object, Array, Promise, String, RegExp, ...) and the powers given: code of one
   * query cannot replace them for the code of a later one in the same session. Variables are
   * accessors, kept apart.
   */
  fixBaseline(): void {
    const global = this.#global;
    for (const name of Object.getOwnPropertyNames(global)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(global, name)!;
      if (descriptor.configurable && 'value' in descriptor) {
        Object.defineProperty(global, name, { writable: false, configurable: false });
      }
    }
    this.#baseline = new Set(Object.getOwnPropertyNames(global));
  }

  /** The value of variable `name`, `undefined` when there is none. */
  read(name: string): unknown {
    return this.#cells.get(name)?.v;
  }

  cell(name: string): Cell | undefined {
    return this.#cells.get(name);
  }

  meta(name: string): VariableMeta | undefined {
    return this.#meta.get(name);
  }

  /** The variables that are not fixed names, in the order they were made. */
  *listed(): Iterable<ListedVariable> {
    for (const [name, meta] of this.#meta) {
      if (meta.owner !== 'fixed') yield { name, meta, cell: this.#cells.get(name) };
    }
  }

  /** What `name` is to the rewriter. */
  kindOf(name: string): NameKind | undefined {
    const meta = this.#meta.get(name);
    if (meta !== undefined) {
      if (meta.owner === 'fixed' || meta.readOnly) return 'protected';
      return meta.isConst ? 'const' : 'let';
    }
    const descriptor = Reflect.getOwnPropertyDescriptor(this.#global, name);
    if (descriptor === undefined) return undefined;
    // A fixed property model code defined (an accessor, say) is no built-in: the name can still
    // become a variable, in a cell of its own (see #create).
    if (!descriptor.configurable) return this.#baseline.has(name) ? 'builtin' : undefined;
    return 'value' in descriptor ? 'global' : undefined;
  }

  /** The cell of `name`, made (a model variable) when there is none. */
  cellFor(name: string): Cell {
    const cell = this.#cells.get(name);
    if (cell !== undefined) return cell;
    return this.#create(name, { owner: 'model', readOnly: false, isConst: false });
  }

  /** The meta of `name`, made (a model variable) when there is none. */
  metaFor(name: string): VariableMeta {
    if (!this.#meta.has(name)) this.cellFor(name);
    return this.#meta.get(name) as VariableMeta;
  }

  /** Defines a fixed name: a host function, `print` or `console`. */
  defineFixed(name: string, value: unknown): void {
    this.#create(name, { owner: 'fixed', readOnly: true, isConst: true }, value);
  }

  /** Applies `variables`; returns the ones that could not be set. */
  set(variables: readonly VariableRecord[]): { readonly name: string; readonly message: string }[] {
    const failures: { name: string; message: string }[] = [];
    for (const record of variables) {
      const { name, owner, readOnly, isConst } = record;
      const existing = this.#meta.get(name);
      if (
        !isIdentifierName(name) ||
        existing?.owner === 'fixed' ||
        this.kindOf(name) === 'builtin'
      ) {
        failures.push({ name, message: `${name} is not a name the sandbox can define` });
        continue;
      }
      let value = record.value;
      if (record.serialized) {
        try {
          value = deserializeCheckpointBytes(record.value as Uint8Array);
        } catch (error) {
          failures.push({ name, message: `${name} could not be restored (${messageOf(error)})` });
          continue;
        }
      }
      const stored = readOnly ? harden(value) : value;
      const meta: VariableMeta =
        owner === 'host'
          ? { owner, readOnly, isConst: false, hostValue: stored }
          : { owner, readOnly: false, isConst };
      let cell = this.#cells.get(name);
      if (cell === undefined) {
        cell = this.#create(name, meta, stored);
      } else {
        this.#meta.set(name, meta);
        cell.v = stored;
      }
      this.pendingTexts.forget(cell);
      if (record.utf8 !== undefined) {
        const { bytes, length } = record.utf8;
        this.pendingTexts.define(cell, bytes, length, (text) => {
          meta.hostValue = text;
        });
      }
      this.#observer?.variableSet(name, owner, value);
    }
    return failures;
  }

  /** Turns globals the code created with `globalThis.name = ...` into variables. */
  adoptGlobals(): void {
    for (const name of Object.keys(this.#global)) {
      if (this.#meta.has(name) || this.#baseline.has(name) || !isIdentifierName(name)) continue;
      const descriptor = Reflect.getOwnPropertyDescriptor(this.#global, name);
      if (descriptor === undefined || !descriptor.configurable || !('value' in descriptor))
        continue;
      this.#create(name, { owner: 'model', readOnly: false, isConst: false }, descriptor.value);
    }
  }

  /**
   * A new cell, visible on the global object (for `eval`, `globalThis.x`, late lookups), unless
   * model code made the name a fixed property of the global object (an accessor that would
   * intercept the variable's writes): the cell then stays the variable's own, and code that
   * names the variable reaches it, never the property.
   */
  #create(name: string, meta: VariableMeta, value?: unknown): Cell {
    const cell: Cell = { v: value };
    this.#cells.set(name, cell);
    this.#meta.set(name, meta);
    if (Reflect.getOwnPropertyDescriptor(this.#global, name)?.configurable === false) return cell;
    Object.defineProperty(this.#global, name, {
      get: () => cell.v,
      set: (next: unknown) => {
        const current = this.#meta.get(name);
        if (current?.owner === 'fixed' || current?.readOnly) {
          throw new TypeError(`${name} is read-only in this sandbox`);
        }
        if (current?.isConst) throw new TypeError(`Assignment to constant variable ${name}.`);
        cell.v = next;
      },
      enumerable: true,
      configurable: false,
    });
    return cell;
  }
}
