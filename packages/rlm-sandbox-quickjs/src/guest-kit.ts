/**
 * The source of the kit that runs inside QuickJS: a function expression, called once per
 * context with the host's raw callbacks, returning the functions the host calls (formatting,
 * variable listing and copying, host function wrappers). It holds the only references to the
 * raw callbacks; nothing of it is a global. It captures the intrinsics it uses before any model
 * code runs, so model code that replaces `JSON` or `Object.keys` later cannot reach into it.
 */
export const guestKitSource = String.raw`(function (write, sleep) {
  'use strict';
  const g = globalThis;
  const { defineProperty, getOwnPropertyNames, getOwnPropertyDescriptor, getPrototypeOf, keys, create } =
    Object;
  const hasOwn = Object.prototype.hasOwnProperty;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const isArray = Array.isArray;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const StringType = String;
  const reservedNames = create(null);
  const readOnly = create(null);
  let baseline = create(null);
  let maxChars = 1e6;
  // Set once an ending function (SUBMIT) is called, until the next execution: the code still
  // unwinding (or going on past a catch) writes nothing, calls nothing and starts no timer.
  let ended = false;
  const endedText = (name) => name + ' was not called: SUBMIT or FINAL_VAR ended this code block';

  const own = (object, name) => call(hasOwn, object, name);
  const clip = (text, limit) => (text.length > limit ? text.slice(0, limit) + '…' : text);

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
  function measure(root) {
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
        if (characters > maxTransferCharacters) throw new TooLarge();
        continue;
      }
      if (value === null || typeof value !== 'object' || call(mapGet, seen, value)) continue;
      call(mapSet, seen, value, true);
      if (isMap(value)) {
        call(mapForEach, value, (entryValue, entryKey) => {
          visit(entryKey);
          visit(entryValue);
        });
      } else if (isSet(value)) {
        call(setForEach, value, visit);
      } else {
        const names = getOwnPropertyNames(value);
        for (let i = 0; i < names.length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, names[i]);
          if (own(descriptor, 'value')) visit(descriptor.value);
        }
      }
    }
  }

  function encode(root) {
    measure(root);
    const seen = new MapType();
    const objects = [];
    let characters = 0;
    function item(value) {
      const kind = typeof value;
      if (kind === 'string') {
        characters += value.length;
        if (characters > maxTransferCharacters) throw new TooLarge();
        return stringify(value);
      }
      if (kind === 'boolean' || value === null) return stringify(value);
      if (kind === 'number') {
        if (value === 0 && 1 / value < 0) return '["d","-0"]';
        return isFiniteNumber(value) ? StringType(value) : '["d",' + stringify(StringType(value)) + ']';
      }
      if (kind === 'undefined') return '["u"]';
      if (kind === 'bigint') return '["n",' + stringify(call(bigintToString, value)) + ']';
      if (kind !== 'object') throw new TypeErrorType('a ' + kind + ' is not data');
      const known = call(mapGet, seen, value);
      if (known !== undefined) return '["r",' + known + ']';
      const index = objects.length;
      if (index >= maxObjects) throw new TypeErrorType('it holds more than ' + maxObjects + ' objects');
      call(mapSet, seen, value, index);
      objects[index] = '';
      let text;
      if (isArray(value)) {
        const parts = [];
        const length = getOwnPropertyDescriptor(value, 'length').value;
        for (let i = 0; i < length; i++) {
          const descriptor = getOwnPropertyDescriptor(value, i);
          parts[i] = descriptor !== undefined && own(descriptor, 'value') ? item(descriptor.value) : '["u"]';
        }
        text = '["a",[' + join(parts, ',') + ']]';
      } else if (isDate(value)) {
        text = '["D",' + StringType(call(getTime, value)) + ']';
      } else if (isMap(value)) {
        const parts = [];
        call(mapForEach, value, (entryValue, entryKey) => {
          parts[parts.length] = '[' + item(entryKey) + ',' + item(entryValue) + ']';
        });
        text = '["M",[' + join(parts, ',') + ']]';
      } else if (isSet(value)) {
        const parts = [];
        call(setForEach, value, (entry) => {
          parts[parts.length] = item(entry);
        });
        text = '["S",[' + join(parts, ',') + ']]';
      } else if (value instanceof ErrorType) {
        const fields = [];
        const names = ['name', 'message'];
        for (let i = 0; i < names.length; i++) {
          let descriptor;
          for (let from = value, depth = 0; from !== null && descriptor === undefined && depth < 16; depth++) {
            descriptor = getOwnPropertyDescriptor(from, names[i]);
            from = getPrototypeOf(from);
          }
          const field = descriptor !== undefined && own(descriptor, 'value') ? descriptor.value : undefined;
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

  function encodeArguments(values, name) {
    try {
      return encode(values);
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

  function typeOf(value) {
    if (value === null) return 'null';
    if (isArray(value)) return 'array';
    return typeof value;
  }

  function sizeOf(value) {
    if (typeof value === 'string' || isArray(value)) return value.length;
    if (value !== null && typeof value === 'object') return keys(value).length;
    return 0;
  }

  function setVariable(name, value, asReadOnly) {
    if (reservedNames[name] || (baseline[name] && !readOnly[name])) {
      throw new TypeErrorType(name + ' is a built-in or protected name');
    }
    if (readOnly[name]) {
      readOnly[name].value = value;
    } else if (asReadOnly) {
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
      let type = 'unknown';
      let size = 0;
      let preview = '';
      try { type = typeOf(value); } catch {}
      try { size = sizeOf(value); } catch {}
      try { preview = clip(format(value, 2), 100); } catch { preview = '[unprintable]'; }
      return stringify({ name, type, size, preview });
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
    assign(text, asReadOnly) {
      const values = decodeGraph(text);
      const names = keys(values);
      for (let i = 0; i < names.length; i++) setVariable(names[i], values[names[i]], asReadOnly);
    },
    assignOne: setVariable,
  };
})`;
