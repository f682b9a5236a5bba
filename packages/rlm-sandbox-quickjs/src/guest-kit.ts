import { makeVariableDescriber } from '@rlm/core/sandbox-support';
import { hardenRealmSource } from './harden-realm.js';

/**
 * The source of the kit that runs inside QuickJS: a function expression, called once per
 * context with the worker's raw callbacks, returning the functions the worker calls
 * (formatting, variable listing and copying, snapshots, host function wrappers). It holds the
 * only references to the raw callbacks; nothing of it is a global. It captures the intrinsics
 * it uses, then hardens the realm (see `hardenRealmSource`) before any model code runs; `seal`
 * freezes the intrinsics once the sandbox's globals are installed.
 */
export const guestKitSource = String.raw`(function (write, sleep) {
  'use strict';
  const g = globalThis;
  const { defineProperty, getOwnPropertyNames, getOwnPropertyDescriptor, getPrototypeOf, keys, create, freeze, isFrozen } =
    Object;
  const hasOwn = Object.prototype.hasOwnProperty;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const isArray = Array.isArray;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const StringType = String;
  const ObjectPrototype = Object.prototype;
  // Data a snapshot restores as it was: anything else with a prototype is a class instance.
  const dataPrototypes = new Set([ObjectPrototype, null, Array.prototype, Map.prototype, Set.prototype, Date.prototype]);
  for (const ErrorClass of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError]) {
    dataPrototypes.add(ErrorClass.prototype);
  }
  const hardening = (${hardenRealmSource})();
  const reservedNames = create(null);
  const readOnly = create(null);
  let baseline = create(null);
  // Model variables' values as last copied for a restart (or tried and refused), by name.
  const snapshotted = create(null);
  let maxChars = 1e6;
  // Set once an ending function (SUBMIT) is called, until the next execution: the code still
  // unwinding (or going on past a catch) writes nothing, calls nothing and starts no timer.
  let ended = false;
  const endedText = (name) => name + ' was not called: SUBMIT or FINAL_VAR ended this code block';

  const own = (object, name) => call(hasOwn, object, name);
  const clip = (text, limit) => (text.length > limit ? text.slice(0, limit) + '…' : text);
  // The listing rule all sandboxes share (see @rlm/core/sandbox-support), with this realm's
  // built-ins taken before model code runs.
  const describeVariable = (${makeVariableDescriber})({ isArray, keys, Map, Set });
  const previewOf = (value, maxChars) => clip(format(value, 2), maxChars);

  function describeError(error) {
    try {
      if (error instanceof ErrorType) {
        let name = StringType(error.name);
        let message = StringType(error.message);
        // QuickJS quotes the name; V8 (and so SES) does not, and callers match on that.
        message = message.replace(/^'([^']*)' is not defined$/, '$1 is not defined');
        if (name === 'InternalError' && message === 'stack overflow') {
          name = 'RangeError';
          message = 'Maximum call stack size exceeded (stack overflow)';
        }
        return clip(name + ': ' + message, maxChars);
      }
      return clip('Uncaught ' + format(error, 0), maxChars);
    } catch {
      return 'Uncaught exception (unprintable)';
    }
  }

  function format(value, depth) {
    if (typeof value === 'string') return depth === 0 ? value : stringify(value);
    if (typeof value === 'function') return '[Function ' + (value.name || 'anonymous') + ']';
    if (typeof value === 'symbol' || typeof value === 'bigint') {
      return typeof value === 'bigint' ? StringType(value) + 'n' : value.toString();
    }
    if (value === null || typeof value !== 'object') return StringType(value);
    if (value instanceof ErrorType) return describeError(value);
    if (depth > 3) return isArray(value) ? '[Array]' : '[Object]';
    let length = 0;
    const parts = [];
    const push = (text) => {
      length += text.length;
      parts.push(text);
      return length < maxChars && parts.length < 1000;
    };
    if (isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!push(format(value[i], depth + 1))) break;
      }
      return '[' + parts.join(', ') + ']';
    }
    for (const key of keys(value)) {
      if (!push(key + ': ' + format(value[key], depth + 1))) break;
    }
    return parts.length === 0 ? '{}' : '{ ' + parts.join(', ') + ' }';
  }

  const show = (value) => clip(format(value, 0), maxChars);
  const print = (...values) => {
    if (ended) return;
    let text = '';
    for (let i = 0; i < values.length; i++) text += (i === 0 ? '' : ' ') + show(values[i]);
    write(text);
  };

  // An accessor, not a read-only data property: QuickJS lets Object.defineProperty replace a
  // non-configurable data property of the global object, but not a non-configurable accessor.
  function protect(name, value) {
    reservedNames[name] = true;
    defineProperty(g, name, {
      get: () => value,
      set: () => {
        throw new TypeErrorType("'" + name + "' is read-only");
      },
      enumerable: false,
      configurable: false,
    });
  }

  const DateType = Date;
  const toISOString = Date.prototype.toISOString;
  const getTime = Date.prototype.getTime;
  const isFiniteNumber = Number.isFinite;
  const arrayJoin = Array.prototype.join;
  const join = (parts, separator) => call(arrayJoin, parts, separator);

  const MapType = Map;
  const SetType = Set;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapForEach = Map.prototype.forEach;
  const setForEach = Set.prototype.forEach;
  const isMap = (value) => { try { call(Map.prototype.has, value, undefined); return true; } catch { return false; } };
  const isSet = (value) => { try { call(Set.prototype.has, value, undefined); return true; } catch { return false; } };
  const isDate = (value) => { try { call(getTime, value); return true; } catch { return false; } };
  // What an object is, by its internal slots; a plain object or an array is known without
  // trying the others (each try that fails costs an exception).
  function objectKind(value) {
    if (isArray(value)) return 'array';
    const prototype = getPrototypeOf(value);
    if (prototype === ObjectPrototype || prototype === null) return 'object';
    if (isDate(value)) return 'date';
    if (isMap(value)) return 'map';
    if (isSet(value)) return 'set';
    if (value instanceof ErrorType) return 'error';
    return 'object';
  }
  const bigintToString = BigInt.prototype.toString;
  const maxObjects = 1000000;
  // 256 MiB once copied: characters of strings, each counted at every place it appears.
  const maxTransferCharacters = 128 * 1024 * 1024;
  const tooLargeText =
    'over 256 MiB once copied (a string counts in full at every place it appears); keep it in the sandbox and pass smaller pieces';
  class TooLarge {}
  const setAdd = Set.prototype.add;
  const BigIntType = BigInt;
  const specialNumbers = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };

  // The inverse of encode, for data the host sends (setVariables).
  function decodeGraph(text) {
    const graph = parseJson(text);
    const objects = graph.objects;
    const built = [];
    for (let i = 0; i < objects.length; i++) {
      const entry = objects[i];
      const tag = entry[0];
      if (tag === 'a') built[i] = [];
      else if (tag === 'M') built[i] = new MapType();
      else if (tag === 'S') built[i] = new SetType();
      else if (tag === 'D') built[i] = new DateType(entry[1]);
      else if (tag === 'E') {
        const error = new ErrorType(entry[2]);
        defineProperty(error, 'name', { value: entry[1], writable: true, enumerable: false, configurable: true });
        built[i] = error;
      } else built[i] = {};
    }
    const item = (value) => {
      if (value === null || typeof value !== 'object') return value;
      const tag = value[0];
      if (tag === 'r') return built[value[1]];
      if (tag === 'u') return undefined;
      if (tag === 'n') return BigIntType(value[1]);
      return specialNumbers[value[1]];
    };
    for (let i = 0; i < objects.length; i++) {
      const tag = objects[i][0];
      const payload = objects[i][1];
      const target = built[i];
      if (tag === 'a') {
        for (let j = 0; j < payload.length; j++) target[j] = item(payload[j]);
      } else if (tag === 'M') {
        for (let j = 0; j < payload.length; j++) call(mapSet, target, item(payload[j][0]), item(payload[j][1]));
      } else if (tag === 'S') {
        for (let j = 0; j < payload.length; j++) call(setAdd, target, item(payload[j]));
      } else if (tag === 'o') {
        for (let j = 0; j < payload.length; j++) {
          defineProperty(target, payload[j][0], { value: item(payload[j][1]), writable: true, enumerable: true, configurable: true });
        }
      }
    }
    return item(graph.root);
  }

  // The JSON text of a value's graph, read without running any code of the guest's: own
  // enumerable data properties only (no getter, toJSON, toString or valueOf), errors as name and
  // message, dates, maps and sets by their internal slots. Shared and cyclic references stay
  // references: { root, objects }, where an item is a JSON value, ["r", index] (an object),
  // ["u"] (undefined), ["n", digits] (a bigint) or ["d", text] (NaN, Infinity, -Infinity, -0).
  // Counts the characters a value's strings take once copied, each string at every place it
  // appears, before anything is built: a value too large is refused at the cost of a walk.
  function measure(root, limit) {
    const seen = new MapType();
    const stack = [root];
    let characters = 0;
    const visit = (value) => {
      stack[stack.length] = value;
    };
    while (stack.length > 0) {
      const value = stack[stack.length - 1];
      stack.length = stack.length - 1;
      if (typeof value === 'string') {
        characters += value.length;
        if (characters > limit) throw new TooLarge();
        continue;
      }
      if (value === null || typeof value !== 'object' || call(mapGet, seen, value)) continue;
      call(mapSet, seen, value, true);
      const kind = objectKind(value);
      if (kind === 'map') {
        call(mapForEach, value, (entryValue, entryKey) => {
          visit(entryKey);
          visit(entryValue);
        });
      } else if (kind === 'set') {
        call(setForEach, value, visit);
      } else if (kind === 'array') {
        // The elements only, as encode copies them: no list of index names to make.
        const length = getOwnPropertyDescriptor(value, 'length').value;
        for (let i = 0; i < length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, i);
          if (descriptor !== undefined && own(descriptor, 'value')) visit(descriptor.value);
        }
      } else {
        const names = getOwnPropertyNames(value);
        for (let i = 0; i < names.length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, names[i]);
          if (own(descriptor, 'value')) visit(descriptor.value);
        }
      }
    }
  }

  // Class instances cross as plain objects; a snapshot refuses them (asData), since a restored
  // copy would lose its methods.
  function encode(root, limit = maxTransferCharacters, asData = false) {
    measure(root, limit);
    const seen = new MapType();
    const objects = [];
    let characters = 0;
    function item(value) {
      const type = typeof value;
      if (type === 'string') {
        characters += value.length;
        if (characters > limit) throw new TooLarge();
        return stringify(value);
      }
      if (type === 'boolean' || value === null) return stringify(value);
      if (type === 'number') {
        if (value === 0 && 1 / value < 0) return '["d","-0"]';
        return isFiniteNumber(value) ? StringType(value) : '["d",' + stringify(StringType(value)) + ']';
      }
      if (type === 'undefined') return '["u"]';
      if (type === 'bigint') return '["n",' + stringify(call(bigintToString, value)) + ']';
      if (type !== 'object') throw new TypeErrorType('a ' + type + ' is not data');
      const known = call(mapGet, seen, value);
      if (known !== undefined) return '["r",' + known + ']';
      const index = objects.length;
      if (index >= maxObjects) throw new TypeErrorType('it holds more than ' + maxObjects + ' objects');
      call(mapSet, seen, value, index);
      objects[index] = '';
      let text;
      const kind = objectKind(value);
      if (asData && !dataPrototypes.has(getPrototypeOf(value))) throw new TypeErrorType('a class instance is not data');
      if (kind === 'array') {
        const parts = [];
        const length = getOwnPropertyDescriptor(value, 'length').value;
        for (let i = 0; i < length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, i);
          parts[i] = descriptor !== undefined && own(descriptor, 'value') ? item(descriptor.value) : '["u"]';
        }
        text = '["a",[' + join(parts, ',') + ']]';
      } else if (kind === 'date') {
        text = '["D",' + StringType(call(getTime, value)) + ']';
      } else if (kind === 'map') {
        const parts = [];
        call(mapForEach, value, (entryValue, entryKey) => {
          parts[parts.length] = '[' + item(entryKey) + ',' + item(entryValue) + ']';
        });
        text = '["M",[' + join(parts, ',') + ']]';
      } else if (kind === 'set') {
        const parts = [];
        call(setForEach, value, (entry) => {
          parts[parts.length] = item(entry);
        });
        text = '["S",[' + join(parts, ',') + ']]';
      } else if (kind === 'error') {
        const fields = [];
        const names = ['name', 'message'];
        for (let i = 0; i < names.length; i++) {
          let descriptor;
          let holder = value;
          for (let depth = 0; holder !== null && depth < 16; depth++) {
            descriptor = getOwnPropertyDescriptor(holder, names[i]);
            if (descriptor !== undefined) break;
            holder = getPrototypeOf(holder);
          }
          // The error prototypes' own name and message are accessors of the hardened realm
          // (overridable, see hardenRealmSource), whose getters are the sandbox's, not the guest's.
          const field =
            descriptor === undefined ? undefined
            : own(descriptor, 'value') ? descriptor.value
            : dataPrototypes.has(holder) && typeof descriptor.get === 'function' ? call(descriptor.get, value)
            : undefined;
          fields[i] = stringify(typeof field === 'string' ? field : names[i] === 'name' ? 'Error' : '');
        }
        text = '["E",' + join(fields, ',') + ']';
      } else {
        const parts = [];
        const names = getOwnPropertyNames(value);
        for (let i = 0; i < names.length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, names[i]);
          if (!descriptor.enumerable || !own(descriptor, 'value')) continue;
          parts[parts.length] = '[' + stringify(names[i]) + ',' + item(descriptor.value) + ']';
        }
        text = '["o",[' + join(parts, ',') + ']]';
      }
      objects[index] = text;
      return '["r",' + index + ']';
    }
    const rootText = item(root);
    return '{"root":' + rootText + ',"objects":[' + join(objects, ',') + ']}';
  }

  // The graph of a list of strings, finite numbers, booleans and nulls, made without walking
  // objects; undefined when the list holds anything else (encode copies that).
  function encodePrimitives(values) {
    const parts = [];
    let characters = 0;
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      const type = typeof value;
      if (type === 'string') {
        characters += value.length;
        if (characters > maxTransferCharacters) throw new TooLarge();
      } else if (!(value === null || type === 'boolean' || (type === 'number' && isFiniteNumber(value) && !(value === 0 && 1 / value < 0)))) {
        return undefined;
      }
      parts[i] = stringify(value);
    }
    return '{"root":["r",0],"objects":[["a",[' + join(parts, ',') + ']]]}';
  }

  function encodeArguments(values, name) {
    try {
      return encodePrimitives(values) ?? encode(values);
    } catch (error) {
      if (error instanceof TooLarge) {
        throw new ErrorType(name + ': its arguments are too large to leave the sandbox: ' + tooLargeText);
      }
      throw new ErrorType(name + ': arguments must be plain data (' + describeError(error) + ')');
    }
  }

  function hostFunction(raw, name) {
    return async (...values) => {
      if (ended) throw new ErrorType(endedText(name));
      const text = encodeArguments(values, name);
      const reply = parseJson(await raw(text));
      if (own(reply, 'error')) throw new ErrorType(reply.error);
      return reply.value;
    };
  }

  // SUBMIT, FINAL_VAR: the call goes to the host, then the execution is over and this throw
  // unwinds the code. Arguments that cannot leave throw a plain error, and the code goes on.
  function endingFunction(raw, name) {
    return (...values) => {
      if (!ended) {
        const text = encodeArguments(values, name);
        ended = true;
        raw(text);
      }
      throw new ErrorType(name + ' ended this code block');
    };
  }

  // Read-only variables cannot change in place either: their own data is frozen (prototypes
  // are intrinsics, frozen already).
  function freezeData(root) {
    const pending = [root];
    while (pending.length > 0) {
      const value = pending.pop();
      if (value === null || typeof value !== 'object' || isFrozen(value)) continue;
      freeze(value);
      const names = getOwnPropertyNames(value);
      for (let i = 0; i < names.length; i++) {
        const descriptor = getOwnPropertyDescriptor(value, names[i]);
        if (own(descriptor, 'value')) pending[pending.length] = descriptor.value;
      }
    }
  }

  // The state of a model variable for the recovery snapshot: 'fixed' (not a model variable),
  // 'primitive' or 'object' (its value now), followed by ' copied' when it is the value copied
  // last.
  function variableState(name) {
    if (baseline[name] || reservedNames[name] || readOnly[name]) return 'fixed';
    const descriptor = getOwnPropertyDescriptor(g, name);
    if (descriptor === undefined || !own(descriptor, 'value')) return 'primitive';
    const value = descriptor.value;
    const kind = value !== null && (typeof value === 'object' || typeof value === 'function') ? 'object' : 'primitive';
    return own(snapshotted, name) && snapshotted[name] === value ? kind + ' copied' : kind;
  }

  function setVariable(name, value, asReadOnly) {
    if (reservedNames[name] || (baseline[name] && !readOnly[name])) {
      throw new TypeErrorType(name + ' is a built-in or protected name');
    }
    if (readOnly[name]) {
      freezeData(value);
      readOnly[name].value = value;
    } else if (asReadOnly) {
      freezeData(value);
      const cell = { value };
      readOnly[name] = cell;
      defineProperty(g, name, {
        get: () => cell.value,
        set: () => {
          throw new TypeErrorType("'" + name + "' is read-only");
        },
        enumerable: true,
        configurable: false,
      });
    } else {
      defineProperty(g, name, { value, writable: true, enumerable: true, configurable: true });
    }
  }

  const timers = create(null);
  let nextTimer = 0;
  const setTimeout = (callback, ms, ...rest) => {
    if (ended) return 0;
    const id = ++nextTimer;
    timers[id] = true;
    sleep(Number(ms) > 0 ? Number(ms) : 0).then(() => {
      if (!timers[id]) return;
      delete timers[id];
      if (typeof callback === 'function') callback(...rest);
    });
    return id;
  };
  const clearTimeout = (id) => {
    delete timers[id];
  };

  return {
    installBase() {
      protect('print', print);
      const consoleObject = Object.freeze({ log: print, info: print, warn: print, error: print, debug: print });
      protect('console', consoleObject);
      protect('setTimeout', setTimeout);
      protect('clearTimeout', clearTimeout);
    },
    installHostFunction(name, raw) {
      protect(name, hostFunction(raw, name));
    },
    installEndingFunction(name, raw) {
      protect(name, endingFunction(raw, name));
    },
    wrapHostFunction: hostFunction,
    isolatedEvaluator(raw) {
      return (source, globals) => raw(StringType(source), globals);
    },
    installHelper(name, value) {
      protect(name, value);
    },
    seal(limit) {
      maxChars = limit;
      baseline = create(null);
      const names = getOwnPropertyNames(g);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        baseline[name] = true;
        // The built-ins (JSON, Math, Object, ...) cannot be replaced for later executions.
        const descriptor = getOwnPropertyDescriptor(g, name);
        if (!reservedNames[name] && descriptor.configurable && own(descriptor, 'value')) {
          protect(name, descriptor.value);
        }
      }
      const installed = [];
      for (const name of keys(reservedNames)) installed[installed.length] = getOwnPropertyDescriptor(g, name).get();
      return hardening.freeze(installed);
    },
    prepare(names) {
      ended = false;
      for (const name of names) {
        if (reservedNames[name] || readOnly[name]) continue;
        const descriptor = getOwnPropertyDescriptor(g, name);
        if (descriptor === undefined) {
          defineProperty(g, name, { value: undefined, writable: true, enumerable: true, configurable: true });
        }
      }
    },
    forget(names) {
      for (const name of names) {
        if (baseline[name] || reservedNames[name] || readOnly[name]) continue;
        try { delete g[name]; } catch {}
      }
    },
    result(box) {
      if (ended || box === undefined || box === null || box.v === undefined) return undefined;
      return show(box.v);
    },
    describeError,
    names() {
      const found = [];
      for (const name of getOwnPropertyNames(g)) {
        if (!baseline[name] && !reservedNames[name]) found.push(name);
      }
      return found.sort().join('\n');
    },
    describe(name) {
      let value;
      if (readOnly[name]) value = readOnly[name].value;
      else {
        const descriptor = getOwnPropertyDescriptor(g, name);
        if (descriptor === undefined) return '';
        if (!own(descriptor, 'value')) return stringify({ name, type: 'accessor', size: 0, preview: '[getter]' });
        value = descriptor.value;
      }
      return stringify(describeVariable(name, value, previewOf));
    },
    copy(name) {
      let value;
      if (readOnly[name]) value = readOnly[name].value;
      else {
        if (baseline[name] || reservedNames[name] || !own(g, name)) return '{"missing":true}';
        value = g[name];
      }
      try {
        return '{"value":' + encode(value) + '}';
      } catch (error) {
        if (error instanceof TooLarge) throw new ErrorType('the value is too large to leave the sandbox: ' + tooLargeText);
        throw error;
      }
    },
    // The state of a model variable for the recovery snapshot: 'fixed' (not a model
    // variable), 'primitive' or 'object' (its value now), and whether it is the value last copied.
    // One a line, for the names given.
    variableStates(names) {
      const states = [];
      for (let i = 0; i < names.length; i++) states[i] = variableState(names[i]);
      return join(states, '\n');
    },
    // The names of the model's variables (read-only ones are the host's), one a line.
    modelNames() {
      const found = [];
      for (const name of getOwnPropertyNames(g)) {
        if (!baseline[name] && !reservedNames[name] && !readOnly[name]) found.push(name);
      }
      return found.join('\n');
    },
    // The JSON text of a model variable's graph, for a restart; refuses functions, class
    // instances and more than limit characters of strings.
    // The value tried counts as copied (variableStates) whether or not it could be.
    snapshotCopy(name, limit) {
      const descriptor = getOwnPropertyDescriptor(g, name);
      if (descriptor === undefined || !own(descriptor, 'value')) throw new TypeErrorType(name + ' is not a data property');
      snapshotted[name] = descriptor.value;
      return encode(descriptor.value, limit, true);
    },
    // Defines a model variable from a snapshot copy; it counts as copied.
    restore(name, text) {
      const value = decodeGraph(text);
      setVariable(name, value, false);
      snapshotted[name] = value;
    },
    assignEncoded(name, text, asReadOnly) {
      setVariable(name, decodeGraph(text), asReadOnly);
    },
    assignOne: setVariable,
  };
})`;
