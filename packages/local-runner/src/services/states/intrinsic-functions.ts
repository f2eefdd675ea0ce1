// The intrinsic functions of JSONPath states ("Intrinsic functions for JSONPath states in Step Functions", Step
// Functions Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/intrinsic-functions.html): a field
// ending in `.$` whose value is `States.<Name>(arguments)`, each argument a string in single quotes (`\'`, `\{`, `\}`,
// `\\` escaped), a number, true, false, null, a path (`$.x`, `$$.x`, `$variable`) or another intrinsic. A failure is
// States.IntrinsicFailure; an unknown function is States.Runtime.
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { runtimeError, StatesError } from './errors.ts';

type Argument = { literal: unknown } | { path: string } | { call: Call };
interface Call {
  name: string;
  args: Argument[];
}

/** A text read from its start, position by position. */
class Reader {
  at = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  skipSpace() {
    while (/\s/.test(this.text[this.at] ?? '')) this.at += 1;
  }
  match(pattern: RegExp) {
    const found = pattern.exec(this.text.slice(this.at));
    if (found) this.at += found[0].length;
    return found;
  }
  expect(character: string) {
    this.skipSpace();
    if (this.text[this.at] !== character) throw this.error(`expected "${character}"`);
    this.at += 1;
  }
  error(why: string) {
    return runtimeError(`the intrinsic function ${this.text} cannot be read: ${why} at character ${this.at}`);
  }
}

/** A quoted string's text, its escapes resolved except `\{` and `\}` (States.Format reads those). */
const stringOf = (reader: Reader) => {
  let text = '';
  reader.at += 1;
  for (;;) {
    const character = reader.text[reader.at];
    if (character === undefined) throw reader.error('an unterminated string');
    reader.at += 1;
    if (character === "'") return text;
    if (character === '\\') {
      const next = reader.text[reader.at] ?? '';
      reader.at += 1;
      text += next === '{' || next === '}' ? `\\${next}` : next;
    } else text += character;
  }
};

/** A path argument: up to the next comma or closing parenthesis outside brackets. */
const pathOf = (reader: Reader) => {
  let depth = 0;
  const start = reader.at;
  for (;;) {
    const character = reader.text[reader.at];
    if (character === undefined) break;
    if (depth === 0 && (character === ',' || character === ')')) break;
    if (character === '[') depth += 1;
    if (character === ']') depth -= 1;
    reader.at += 1;
  }
  return reader.text.slice(start, reader.at).trim();
};

const argumentOf = (reader: Reader): Argument => {
  reader.skipSpace();
  const character = reader.text[reader.at];
  if (character === "'") return { literal: stringOf(reader) };
  if (character === '$') return { path: pathOf(reader) };
  const number = reader.match(/^-?\d+(\.\d+)?([eE][-+]?\d+)?/);
  if (number) return { literal: Number(number[0]) };
  const constant = reader.match(/^(true|false|null)\b/);
  if (constant) return { literal: JSON.parse(constant[0]) };
  return { call: callOf(reader) };
};

const callOf = (reader: Reader): Call => {
  reader.skipSpace();
  const name = reader.match(/^States\.[A-Za-z0-9]+/);
  if (!name) throw reader.error('expected States.<function>');
  reader.expect('(');
  const args: Argument[] = [];
  reader.skipSpace();
  if (reader.text[reader.at] === ')') reader.at += 1;
  else
    for (;;) {
      args.push(argumentOf(reader));
      reader.skipSpace();
      const next = reader.text[reader.at];
      reader.at += 1;
      if (next === ')') break;
      if (next !== ',') throw reader.error('expected "," or ")"');
    }
  return { name: name[0], args };
};

/** Whether a `.$` field's value is an intrinsic function rather than a path. */
export const isIntrinsic = (text: string) => /^\s*States\.[A-Za-z0-9]+\s*\(/.test(text);

const failure = (name: string, why: string) => new StatesError('States.IntrinsicFailure', `${name}: ${why}`);

const unescaped = (text: string) => text.replace(/\\([{}])/g, '$1');

const formatted = (args: unknown[]) => {
  const [template, ...values] = args;
  if (typeof template !== 'string') throw failure('States.Format', 'its first argument is not a string');
  let index = 0;
  const text = template.replace(/(?<!\\)\{\}/g, () => {
    const value = values[index++];
    if (typeof value === 'object' && value !== null) throw failure('States.Format', 'an argument is not a scalar');
    return String(value);
  });
  if (index !== values.length) throw failure('States.Format', 'the number of arguments does not match the {}s');
  return unescaped(text);
};

const list = (name: string, value: unknown) => {
  if (!Array.isArray(value)) throw failure(name, 'its argument is not an array');
  return value;
};
const number = (name: string, value: unknown) => {
  if (typeof value !== 'number') throw failure(name, 'an argument is not a number');
  return value;
};
const text = (name: string, value: unknown) => {
  if (typeof value !== 'string') throw failure(name, 'an argument is not a string');
  return unescaped(value);
};

const partitioned = (items: unknown[], size: number) => {
  if (size < 1) throw failure('States.ArrayPartition', 'the chunk size is not positive');
  const chunks: unknown[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
};

const ranged = (start: number, end: number, step: number) => {
  if (step === 0) throw failure('States.ArrayRange', 'the step is 0');
  const values: number[] = [];
  for (let value = start; step > 0 ? value <= end : value >= end; value += step) values.push(value);
  if (values.length > 1000) throw failure('States.ArrayRange', 'more than 1000 items');
  return values;
};

/** `data` hashed by `algorithm` (MD5, SHA-1, SHA-256, SHA-384, SHA-512), as hex: States.Hash's and JSONata's $hash. */
export const hashed = (data: unknown, algorithm: unknown) => {
  const names: Record<string, string> = {
    MD5: 'md5',
    'SHA-1': 'sha1',
    'SHA-256': 'sha256',
    'SHA-384': 'sha384',
    'SHA-512': 'sha512',
  };
  const chosen = names[String(algorithm)];
  if (!chosen)
    throw failure('States.Hash', `the algorithm ${String(algorithm)} is not one of ${Object.keys(names).join(', ')}`);
  return createHash(chosen)
    .update(typeof data === 'string' ? data : JSON.stringify(data))
    .digest('hex');
};

const merged = (a: unknown, b: unknown, deep: unknown) => {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(a) || !isObject(b)) throw failure('States.JsonMerge', 'an argument is not an object');
  if (deep !== false) throw failure('States.JsonMerge', 'only a shallow merge (false) is defined');
  return { ...(a as object), ...(b as object) };
};

/** Each function, by name, on its evaluated arguments. */
const functions: Record<string, (args: unknown[]) => unknown> = {
  'States.Format': formatted,
  'States.StringToJson': ([value]) => {
    try {
      return JSON.parse(text('States.StringToJson', value));
    } catch (error) {
      if (error instanceof StatesError) throw error;
      throw failure('States.StringToJson', 'its argument is not JSON');
    }
  },
  'States.JsonToString': ([value]) => JSON.stringify(value),
  'States.Array': (args) => args,
  'States.ArrayPartition': ([items, size]) =>
    partitioned(list('States.ArrayPartition', items), number('States.ArrayPartition', size)),
  'States.ArrayContains': ([items, value]) =>
    list('States.ArrayContains', items).some((item) => isDeepStrictEqual(item, value)),
  'States.ArrayRange': ([start, end, step]) =>
    ranged(number('States.ArrayRange', start), number('States.ArrayRange', end), number('States.ArrayRange', step)),
  'States.ArrayGetItem': ([items, index]) => list('States.ArrayGetItem', items)[number('States.ArrayGetItem', index)],
  'States.ArrayLength': ([items]) => list('States.ArrayLength', items).length,
  'States.ArrayUnique': ([items]) =>
    list('States.ArrayUnique', items).filter(
      (item, index, all) => all.findIndex((other) => isDeepStrictEqual(other, item)) === index,
    ),
  'States.Base64Encode': ([value]) => Buffer.from(text('States.Base64Encode', value)).toString('base64'),
  'States.Base64Decode': ([value]) => Buffer.from(text('States.Base64Decode', value), 'base64').toString('utf8'),
  'States.Hash': ([data, algorithm]) => hashed(data, algorithm),
  'States.JsonMerge': ([a, b, deep]) => merged(a, b, deep),
  'States.MathRandom': ([start, end]) =>
    randomInt(number('States.MathRandom', start), number('States.MathRandom', end)),
  'States.MathAdd': ([a, b]) => number('States.MathAdd', a) + number('States.MathAdd', b),
  'States.StringSplit': ([value, separators]) => {
    const splitters = [...text('States.StringSplit', separators)];
    return text('States.StringSplit', value)
      .split(new RegExp(`[${splitters.map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]`))
      .filter((part) => part !== '');
  },
  'States.UUID': () => randomUUID(),
};

const evaluated = (call: Call, resolve: (path: string) => unknown): unknown => {
  const fn = functions[call.name];
  if (!fn) throw runtimeError(`${call.name} is not an intrinsic function`);
  const args = call.args.map((arg) => {
    if ('literal' in arg) return arg.literal;
    if ('path' in arg) return resolve(arg.path);
    return evaluated(arg.call, resolve);
  });
  return fn(args);
};

/** `text` (an intrinsic function call) evaluated, each path argument read by `resolve`. */
export const intrinsic = (text: string, resolve: (path: string) => unknown) => {
  const reader = new Reader(text.trim());
  const call = callOf(reader);
  reader.skipSpace();
  if (reader.at !== reader.text.length) throw reader.error('text after the call');
  return evaluated(call, resolve);
};
