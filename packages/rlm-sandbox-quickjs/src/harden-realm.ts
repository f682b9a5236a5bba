/**
 * The source of a function expression that hardens the QuickJS realm it runs in, before any
 * model code does: the equivalent of SES's `lockdown()` for QuickJS. Called once (the guest
 * kit calls it when it is made), it
 *
 * - makes the function constructors unreachable from values: `Function.prototype.constructor`
 *   and its async and generator kin become functions that throw, so no value leads to an
 *   evaluator (the `Function` and `eval` globals remain, and evaluate in this realm);
 * - turns a few inherited properties code commonly overrides on its own objects (`toString`,
 *   an error's `name` and `message`, `constructor`, ...) into accessors whose setter defines
 *   the property on the object assigned to, so that freezing their prototypes does not break
 *   `error.name = 'ParseError'` (the "override mistake");
 * - keeps the global object plain: `Object.defineProperty` and its kin refuse to make a global
 *   an accessor, read-only or non-configurable, or to change the global object's prototype or
 *   extensibility, and `Proxy` refuses the global object as a target. So a name one execution
 *   plants cannot intercept a later execution's assignments: a global is a variable, a
 *   protected name of the sandbox, or a built-in.
 *
 * It returns `{ freeze(roots) }`, which freezes every intrinsic (the built-ins the global object
 * holds, and those only syntax reaches: generator and async function prototypes, iterator
 * prototypes, `%TypedArray%`, `%ThrowTypeError%`) and everything reachable from them and from
 * `roots` through properties, accessors and prototypes. Call it once everything the sandbox
 * installs is in place.
 */
export const hardenRealmSource = `(function () {
  'use strict';
  const g = globalThis;
  const ObjectType = Object;
  const ReflectType = Reflect;
  const ProxyType = Proxy;
  const TypeErrorType = TypeError;
  const { defineProperty, defineProperties, getOwnPropertyDescriptor, getPrototypeOf, freeze } = ObjectType;
  const { ownKeys, apply } = ReflectType;
  const hasOwn = ObjectType.prototype.hasOwnProperty;
  const own = (object, key) => apply(hasOwn, object, [key]);

  // ---- intrinsics only syntax reaches ----
  const generatorFunction = getPrototypeOf(function* () {});
  const asyncFunction = getPrototypeOf(async function () {});
  const asyncGeneratorFunction = getPrototypeOf(async function* () {});
  const hidden = [
    generatorFunction,
    asyncFunction,
    asyncGeneratorFunction,
    getPrototypeOf([][Symbol.iterator]()),
    getPrototypeOf(new Map()[Symbol.iterator]()),
    getPrototypeOf(new Set()[Symbol.iterator]()),
    getPrototypeOf(''[Symbol.iterator]()),
    getPrototypeOf(/./g[Symbol.matchAll]('')),
    getPrototypeOf(Int8Array),
    getOwnPropertyDescriptor(Function.prototype, 'caller')?.get,
    (function () { 'use strict'; return getOwnPropertyDescriptor(arguments, 'callee')?.get; })(),
  ];
  if (typeof Iterator === 'function') {
    if (typeof Iterator.from === 'function') hidden.push(getPrototypeOf(Iterator.from({ next() {} })));
    if (typeof Iterator.prototype.map === 'function') hidden.push(getPrototypeOf([].values().map((x) => x)));
  }
  const globalNames = ownKeys(g);

  // ---- no evaluator reachable from a value ----
  const tameConstructor = (prototype, label) => {
    const inert = {
      [label](..._args) {
        throw new TypeErrorType(label + ' is not reachable from a value in the sandbox; use Function or eval');
      },
    }[label];
    defineProperty(inert, 'prototype', { value: prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(prototype, 'constructor', { value: inert, writable: true, enumerable: false, configurable: true });
  };
  tameConstructor(Function.prototype, 'Function');
  tameConstructor(generatorFunction, 'GeneratorFunction');
  tameConstructor(asyncFunction, 'AsyncFunction');
  tameConstructor(asyncGeneratorFunction, 'AsyncGeneratorFunction');

  // ---- overridable inherited properties ----
  const overridable = (object, keys) => {
    for (const key of keys) {
      const descriptor = getOwnPropertyDescriptor(object, key);
      if (descriptor === undefined || !own(descriptor, 'value') || !descriptor.configurable) continue;
      const value = descriptor.value;
      defineProperty(object, key, {
        get() {
          return value;
        },
        set(next) {
          if (this === object) {
            throw new TypeErrorType("Cannot assign to read only property '" + String(key) + "'");
          }
          if (this === null || (typeof this !== 'object' && typeof this !== 'function')) return;
          if (own(this, key)) this[key] = next;
          else defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
        },
        enumerable: descriptor.enumerable,
        configurable: true,
      });
    }
  };
  overridable(Object.prototype, ['toString', 'toLocaleString', 'valueOf', 'constructor']);
  overridable(Function.prototype, ['toString', 'constructor']);
  overridable(Array.prototype, ['toString']);
  overridable(Promise.prototype, ['constructor']);
  overridable(getPrototypeOf(generatorFunction.prototype), ['toString', 'constructor', Symbol.iterator]);
  for (const ErrorClass of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError]) {
    overridable(ErrorClass.prototype, ['name', 'message', 'constructor', 'toString']);
  }
  if (typeof InternalError === 'function') overridable(InternalError.prototype, ['name', 'message', 'constructor']);

  // ---- a plain global object ----
  const refuse = (what) => {
    throw new TypeErrorType(
      'the global object holds plain variables only: ' + what + '; declare the variable, or assign it, instead',
    );
  };
  // The descriptor as [[DefineOwnProperty]] reads it: each field once, in the spec's order.
  const readDescriptor = (attributes) => {
    if (attributes === null || (typeof attributes !== 'object' && typeof attributes !== 'function')) {
      throw new TypeErrorType('Property description must be an object');
    }
    const copy = {};
    for (const field of ['enumerable', 'configurable', 'value', 'writable', 'get', 'set']) {
      if (field in attributes) copy[field] = attributes[field];
    }
    return copy;
  };
  const isPlainDefinition = (key, descriptor) => {
    if (own(descriptor, 'get') || own(descriptor, 'set')) return false;
    const current = getOwnPropertyDescriptor(g, key);
    const pick = (field) => (own(descriptor, field) ? !!descriptor[field] : current !== undefined && !!current[field]);
    if (current !== undefined && !own(current, 'value')) return false;
    return pick('writable') && pick('configurable');
  };
  const checkedDescriptor = (key, attributes) => {
    const descriptor = readDescriptor(attributes);
    if (!isPlainDefinition(key, descriptor)) {
      refuse('cannot define ' + String(key) + ' as an accessor, read-only or non-configurable');
    }
    return descriptor;
  };
  const guarded = {
    defineProperty(target, key, attributes) {
      if (target !== g) return defineProperty(target, key, attributes);
      return defineProperty(target, key, checkedDescriptor(key, attributes));
    },
    defineProperties(target, properties) {
      if (target !== g) return defineProperties(target, properties);
      const source = ObjectType(properties);
      const checked = {};
      for (const key of ownKeys(source)) {
        const field = getOwnPropertyDescriptor(source, key);
        if (field !== undefined && field.enumerable) checked[key] = checkedDescriptor(key, source[key]);
      }
      return defineProperties(target, checked);
    },
    reflectDefineProperty(target, key, attributes) {
      if (target !== g) return ReflectType.defineProperty(target, key, attributes);
      const descriptor = readDescriptor(attributes);
      return isPlainDefinition(key, descriptor) && ReflectType.defineProperty(target, key, descriptor);
    },
    defineGetter(key, getter) {
      if (this === g) refuse('cannot define a getter for ' + String(key));
      return apply(defineGetter, this, [key, getter]);
    },
    defineSetter(key, setter) {
      if (this === g) refuse('cannot define a setter for ' + String(key));
      return apply(defineSetter, this, [key, setter]);
    },
    freeze(target) {
      if (target === g) refuse('it cannot be frozen');
      return freeze(target);
    },
    seal(target) {
      if (target === g) refuse('it cannot be sealed');
      return ObjectType.seal(target);
    },
    preventExtensions(target) {
      if (target === g) refuse('it stays extensible');
      return ObjectType.preventExtensions(target);
    },
    reflectPreventExtensions(target) {
      return target !== g && ReflectType.preventExtensions(target);
    },
    setPrototypeOf(target, prototype) {
      if (target === g) refuse('its prototype is fixed');
      return ObjectType.setPrototypeOf(target, prototype);
    },
    reflectSetPrototypeOf(target, prototype) {
      return target !== g && ReflectType.setPrototypeOf(target, prototype);
    },
  };
  const defineGetter = ObjectType.prototype.__defineGetter__;
  const defineSetter = ObjectType.prototype.__defineSetter__;
  const protoAccessor = getOwnPropertyDescriptor(ObjectType.prototype, '__proto__');
  const method = (owner, key, value, name) => {
    defineProperty(value, 'name', { value: name, writable: false, enumerable: false, configurable: true });
    defineProperty(owner, key, { value, writable: true, enumerable: false, configurable: true });
  };
  method(ObjectType, 'defineProperty', guarded.defineProperty, 'defineProperty');
  method(ObjectType, 'defineProperties', guarded.defineProperties, 'defineProperties');
  method(ObjectType, 'freeze', guarded.freeze, 'freeze');
  method(ObjectType, 'seal', guarded.seal, 'seal');
  method(ObjectType, 'preventExtensions', guarded.preventExtensions, 'preventExtensions');
  method(ObjectType, 'setPrototypeOf', guarded.setPrototypeOf, 'setPrototypeOf');
  method(ReflectType, 'defineProperty', guarded.reflectDefineProperty, 'defineProperty');
  method(ReflectType, 'preventExtensions', guarded.reflectPreventExtensions, 'preventExtensions');
  method(ReflectType, 'setPrototypeOf', guarded.reflectSetPrototypeOf, 'setPrototypeOf');
  method(ObjectType.prototype, '__defineGetter__', guarded.defineGetter, '__defineGetter__');
  method(ObjectType.prototype, '__defineSetter__', guarded.defineSetter, '__defineSetter__');
  if (protoAccessor !== undefined && typeof protoAccessor.set === 'function') {
    const setProto = protoAccessor.set;
    const setPrototype = function (prototype) {
      if (this === g) refuse('its prototype is fixed');
      return apply(setProto, this, [prototype]);
    };
    defineProperty(setPrototype, 'name', { value: 'set __proto__', writable: false, enumerable: false, configurable: true });
    defineProperty(ObjectType.prototype, '__proto__', {
      get: protoAccessor.get,
      set: setPrototype,
      enumerable: false,
      configurable: true,
    });
  }
  const refuseGlobalTarget = (target) => {
    if (target === g) refuse('it cannot be the target of a Proxy');
  };
  const GuardedProxy = function Proxy(target, handler) {
    if (new.target === undefined) throw new TypeErrorType("Constructor Proxy requires 'new'");
    refuseGlobalTarget(target);
    return new ProxyType(target, handler);
  };
  defineProperty(GuardedProxy, 'prototype', { value: undefined, writable: false, enumerable: false, configurable: false });
  method(GuardedProxy, 'revocable', {
    revocable(target, handler) {
      refuseGlobalTarget(target);
      return ProxyType.revocable(target, handler);
    },
  }.revocable, 'revocable');
  defineProperty(g, 'Proxy', { value: GuardedProxy, writable: true, enumerable: false, configurable: true });

  return {
    freeze(roots) {
      const pending = [...hidden, ...roots];
      for (const key of globalNames) {
        const descriptor = getOwnPropertyDescriptor(g, key);
        if (descriptor !== undefined && own(descriptor, 'value')) pending.push(descriptor.value);
      }
      pending.push(g.Proxy);
      const seen = new Set();
      while (pending.length > 0) {
        const value = pending.pop();
        if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
        if (value === g || seen.has(value)) continue;
        seen.add(value);
        freeze(value);
        pending.push(getPrototypeOf(value));
        for (const key of ownKeys(value)) {
          const descriptor = getOwnPropertyDescriptor(value, key);
          if (own(descriptor, 'value')) pending.push(descriptor.value);
          else pending.push(descriptor.get, descriptor.set);
        }
      }
      return seen.size;
    },
  };
})`;
