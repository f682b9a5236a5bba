/**
 * The source of an expression that makes, in the realm where it is evaluated, a function
 * `copy(value, what)` that copies plain data into that realm: every object of the copy is made
 * there, so nothing reachable from it (its prototype, `constructor.constructor`) leads back to
 * the realm of `value`. Durable tools use it to hand a method's arguments to its own realm and
 * its result back to the caller's.
 *
 * Copied: primitives, arrays (their elements), plain objects and class instances (their own
 * enumerable data properties, as plain objects), `Map`, `Set`, `Date`, and errors (name and
 * message); shared and cyclic references stay shared. No getter, setter, `toJSON` or other
 * method of `value` runs, and the copy has none; a function or symbol anywhere throws a
 * `TypeError` naming `what` (`argument 1`, `the result`), and so does anything else that stops
 * the copy (a revoked proxy, a trap that throws). Evaluated before any other code of a
 * realm, it keeps the intrinsics it uses and writes with `defineProperty` only, so code that
 * later replaces intrinsics or plants setters on prototypes (where they are not frozen) sees
 * nothing of what it copies.
 */
export const dataCopierSource = `(() => {
  'use strict';
  const { getOwnPropertyNames, getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object;
  const isArray = Array.isArray;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const hasOwn = Object.prototype.hasOwnProperty;
  const MapType = Map;
  const SetType = Set;
  const DateType = Date;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const StringType = String;
  const mapHas = Map.prototype.has;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapForEach = Map.prototype.forEach;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setForEach = Set.prototype.forEach;
  const getTime = Date.prototype.getTime;
  const toStringTag = Object.prototype.toString;
  const errorTypes = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const own = (object, key) => call(hasOwn, object, key);
  const has = (method, value) => {
    try {
      call(method, value, undefined);
      return true;
    } catch {
      return false;
    }
  };
  const define = (target, key, value) =>
    defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  // A data property's value, or undefined for an accessor or none: no getter runs.
  const dataOf = (object, key) => {
    const descriptor = getOwnPropertyDescriptor(object, key);
    return descriptor !== undefined && own(descriptor, 'value') ? descriptor.value : undefined;
  };
  const errorNames = getOwnPropertyNames(errorTypes);
  // An error's name: its own, else its class's (a prototype of this realm's error classes is
  // known by identity; their name may be an accessor of a hardened realm), else a prototype's.
  const errorName = (error) => {
    const name = dataOf(error, 'name');
    if (typeof name === 'string') return name;
    for (let holder = getPrototypeOf(error), depth = 0; holder !== null && depth < 16; depth++) {
      for (let i = 0; i < errorNames.length; i++) {
        if (holder === errorTypes[errorNames[i]].prototype) return errorNames[i];
      }
      const inherited = dataOf(holder, 'name');
      if (typeof inherited === 'string') return inherited;
      holder = getPrototypeOf(holder);
    }
    return 'Error';
  };
  const errorMessage = (error) => {
    for (let holder = error, depth = 0; holder !== null && depth < 16; depth++) {
      const message = dataOf(holder, 'message');
      if (typeof message === 'string') return message;
      holder = getPrototypeOf(holder);
    }
    return '';
  };
  return function copy(root, what) {
    const copies = new MapType();
    let refusal;
    const refuse = (kind) => {
      refusal = new TypeErrorType(StringType(what) + ' must be plain data: it holds a ' + kind);
      throw refusal;
    };
    const visit = (value) => {
      const type = typeof value;
      if (type === 'function' || type === 'symbol') refuse(type);
      if (value === null || type !== 'object') return value;
      if (call(mapHas, copies, value)) return call(mapGet, copies, value);
      if (isArray(value)) {
        const array = [];
        call(mapSet, copies, value, array);
        const length = dataOf(value, 'length');
        for (let i = 0; i < length; i++) define(array, i, visit(dataOf(value, i)));
        return array;
      }
      if (has(getTime, value)) {
        const date = new DateType(call(getTime, value));
        call(mapSet, copies, value, date);
        return date;
      }
      if (has(mapHas, value)) {
        const map = new MapType();
        call(mapSet, copies, value, map);
        const entries = [];
        call(mapForEach, value, (entry, key) => {
          define(entries, entries.length, [key, entry]);
        });
        for (let i = 0; i < entries.length; i++) {
          call(mapSet, map, visit(entries[i][0]), visit(entries[i][1]));
        }
        return map;
      }
      if (has(setHas, value)) {
        const set = new SetType();
        call(mapSet, copies, value, set);
        const entries = [];
        call(setForEach, value, (entry) => {
          define(entries, entries.length, entry);
        });
        for (let i = 0; i < entries.length; i++) call(setAdd, set, visit(entries[i]));
        return set;
      }
      // An error of any realm (its internal slot says so, or its tag does: either way only
      // two strings are read).
      if (call(toStringTag, value) === '[object Error]') {
        const name = errorName(value);
        const ErrorClass = own(errorTypes, name) ? errorTypes[name] : ErrorType;
        const error = new ErrorClass(errorMessage(value));
        if (!own(errorTypes, name)) {
          defineProperty(error, 'name', { value: name, writable: true, enumerable: false, configurable: true });
        }
        call(mapSet, copies, value, error);
        return error;
      }
      const object = {};
      call(mapSet, copies, value, object);
      const names = getOwnPropertyNames(value);
      for (let i = 0; i < names.length; i++) {
        const descriptor = getOwnPropertyDescriptor(value, names[i]);
        if (descriptor.enumerable && own(descriptor, 'value')) define(object, names[i], visit(descriptor.value));
      }
      return object;
    };
    try {
      return visit(root);
    } catch (error) {
      // A revoked proxy, a trap that throws, nesting too deep: said in the same terms.
      if (error === refusal) throw error;
      const reason = error !== null && typeof error === 'object' ? errorMessage(error) : StringType(error);
      throw new TypeErrorType(StringType(what) + ' cannot be copied (' + reason + ')');
    }
  };
})()`;
