// JSONPath as Jayway JsonPath reads it (the syntax Step Functions' paths and API Gateway's `$input.path` /
// `$input.json` follow): `$` (or `@` inside a filter), then steps: `.name` and `['name']` a member, `[n]` and `[n,m]`
// items (negative from the end), `[a:b]` a slice, `.*` and `[*]` every member, `..` a deep scan before any of those,
// `[?(<expression>)]` a filter, and `.length()` last. A filter's expression: operands (a path from `@` or `$`, a
// number, a string in single or double quotes, true, false, null, a list `[...]` of those, a regular expression
// `/.../i`), the operators ==, !=, <, <=, >, >=, =~, in, nin, then &&, ||, ! and parentheses. A path alone is a test
// that it exists. What Jayway has beyond this (its other functions, `subsetof`, `anyof`, `noneof`, `size`, `empty`,
// `['a','b']`) is a JsonPathError naming it, never evaluated as something else.

export class JsonPathError extends Error {
  override name = 'JsonPathError';
}

export type Literal = null | boolean | number | string | Literal[];

export type Step =
  | { kind: 'member'; name: string }
  | { kind: 'index'; indexes: number[] }
  | { kind: 'slice'; from?: number; to?: number }
  | { kind: 'every' }
  | { kind: 'filter'; test: Expression }
  | { kind: 'scan'; each: Step }
  | { kind: 'length' };

export interface Path {
  root: '$' | '@';
  steps: Step[];
}

export type Operand = { path: Path } | { literal: Literal } | { pattern: RegExp };

const comparators = ['==', '!=', '<=', '>=', '<', '>', '=~', 'in', 'nin'] as const;
export type Comparator = (typeof comparators)[number];

export type Expression =
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression }
  | { kind: 'exists'; path: Path }
  | { kind: 'compare'; comparator: Comparator; left: Operand; right: Operand };

/** Jayway's operators the runner does not evaluate, refused by name. */
const refusedOperators = ['subsetof', 'anyof', 'noneof', 'size', 'empty', 'contains'];

/** A reader over `text`, one position at a time. */
class Reader {
  at = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  get rest() {
    return this.text.slice(this.at);
  }
  spaces() {
    while (/\s/.test(this.text[this.at] ?? '')) this.at += 1;
  }
  take(token: string) {
    if (!this.text.startsWith(token, this.at)) return false;
    this.at += token.length;
    return true;
  }
  match(pattern: RegExp) {
    const found = pattern.exec(this.rest);
    if (found) this.at += found[0].length;
    return found ?? undefined;
  }
  fail(what: string): never {
    throw new JsonPathError(`the JSONPath ${this.text} ${what} (at "${this.rest.slice(0, 20)}")`);
  }
}

const quotedText = /^(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/;
const unescaped = (found: RegExpExecArray) => (found[1] ?? found[2] ?? '').replace(/\\(.)/g, '$1');

/** What is inside `[...]`, the `[` read. */
const bracketStep = (reader: Reader): Step => {
  reader.spaces();
  let step: Step;
  if (reader.take('*')) step = { kind: 'every' };
  else if (reader.take('?')) {
    reader.spaces();
    if (!reader.take('(')) reader.fail('has a filter without parentheses');
    step = { kind: 'filter', test: expression(reader) };
    reader.spaces();
    if (!reader.take(')')) reader.fail("has a filter that does not end with ')'");
  } else step = namesOrNumbers(reader);
  reader.spaces();
  if (!reader.take(']')) reader.fail("has a '[' without its ']'");
  return step;
};

const namesOrNumbers = (reader: Reader): Step => {
  const quoted = reader.match(quotedText);
  if (quoted) {
    reader.spaces();
    if (reader.rest.startsWith(',')) reader.fail("names several members (['a','b']), which is not evaluated locally");
    return { kind: 'member', name: unescaped(quoted) };
  }
  const slice = reader.match(/^(-?\d*)\s*:\s*(-?\d*)(?!\s*:)/);
  if (slice) {
    return {
      kind: 'slice',
      ...(slice[1] ? { from: Number(slice[1]) } : {}),
      ...(slice[2] ? { to: Number(slice[2]) } : {}),
    };
  }
  const indexes = reader.match(/^-?\d+(?:\s*,\s*-?\d+)*/);
  if (indexes) return { kind: 'index', indexes: indexes[0].split(',').map((index) => Number(index.trim())) };
  return reader.fail('has a bracket the runner does not read');
};

/** A member's name after `.`: up to the next `.`, `[`, `(`, space, or (in a filter) an operator. */
const memberName = (reader: Reader, inFilter: boolean) =>
  reader.match(inFilter ? /^[^\s.[\]()<>=!&|,'"~/]+/ : /^[^\s.[\]()]+/)?.[0];

/** One step after `.` (or after `..`): a member, `*`, or a function. */
const dotStep = (reader: Reader, inFilter: boolean): Step => {
  if (reader.take('*')) return { kind: 'every' };
  if (reader.take('[')) return bracketStep(reader);
  const name = memberName(reader, inFilter);
  if (name === undefined) return reader.fail('has a step the runner does not read');
  if (!reader.take('()')) return { kind: 'member', name };
  if (name !== 'length') reader.fail(`calls ${name}(), which is not evaluated locally (length() is)`);
  return { kind: 'length' };
};

/** A path from its `$` or `@`; inside a filter it ends where the expression goes on. */
const pathFrom = (reader: Reader, inFilter: boolean): Path => {
  const root = reader.take('$') ? '$' : reader.take('@') ? '@' : reader.fail('does not start with $');
  const steps: Step[] = [];
  for (;;) {
    if (steps.at(-1)?.kind === 'length' && /^[.[]/.test(reader.rest)) reader.fail('has a step after length()');
    if (reader.take('..')) steps.push({ kind: 'scan', each: dotStep(reader, inFilter) });
    else if (reader.take('.')) steps.push(dotStep(reader, inFilter));
    else if (reader.take('[')) steps.push(bracketStep(reader));
    else return { root, steps };
  }
};

const literal = (reader: Reader): Literal | undefined => {
  const quoted = reader.match(quotedText);
  if (quoted) return unescaped(quoted);
  const number = reader.match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/);
  if (number) return Number(number[0]);
  const word = reader.match(/^(?:true|false|null)\b/);
  if (word) return JSON.parse(word[0]) as Literal;
  if (!reader.take('[')) return undefined;
  const items: Literal[] = [];
  reader.spaces();
  while (!reader.take(']')) {
    if (items.length > 0 && !reader.take(',')) reader.fail('has a list without its commas');
    reader.spaces();
    const item = literal(reader);
    if (item === undefined) reader.fail('has a list item that is not a literal');
    items.push(item);
    reader.spaces();
  }
  return items;
};

const operand = (reader: Reader): Operand => {
  reader.spaces();
  if (/^[$@]/.test(reader.rest)) return { path: pathFrom(reader, true) };
  const pattern = reader.match(/^\/((?:[^/\\]|\\.)*)\/([a-z]*)/);
  if (pattern) {
    if (!/^i?$/.test(pattern[2] as string)) reader.fail(`has the regular expression flags ${pattern[2]}`);
    try {
      return { pattern: new RegExp(`^(?:${pattern[1]})$`, pattern[2]) };
    } catch {
      return reader.fail(`has the regular expression /${pattern[1]}/, which JavaScript does not read`);
    }
  }
  const value = literal(reader);
  if (value === undefined) return reader.fail('has an operand the runner does not read');
  return { literal: value };
};

const comparison = (reader: Reader): Expression => {
  const left = operand(reader);
  reader.spaces();
  const word = /^[a-z]+/.exec(reader.rest)?.[0];
  if (word && refusedOperators.includes(word)) reader.fail(`uses the operator ${word}, which is not evaluated locally`);
  const comparator = comparators.find((candidate) =>
    /^[a-z]/.test(candidate) ? word === candidate : reader.rest.startsWith(candidate),
  );
  if (comparator === undefined) {
    if (!('path' in left)) reader.fail('has a filter operand without a comparison');
    return { kind: 'exists', path: left.path };
  }
  reader.take(comparator);
  return { kind: 'compare', comparator, left, right: operand(reader) };
};

const unary = (reader: Reader): Expression => {
  reader.spaces();
  if (reader.take('!')) return { kind: 'not', operand: unary(reader) };
  if (!reader.take('(')) return comparison(reader);
  const inner = expression(reader);
  reader.spaces();
  if (!reader.take(')')) reader.fail("has a '(' without its ')'");
  return inner;
};

const chain = (reader: Reader, kind: 'and' | 'or', token: string, next: (reader: Reader) => Expression) => {
  let left = next(reader);
  for (reader.spaces(); reader.take(token); reader.spaces()) left = { kind, left, right: next(reader) };
  return left;
};

const expression = (reader: Reader): Expression =>
  chain(reader, 'or', '||', (inner) => chain(inner, 'and', '&&', unary));

/** `text` read as a JSONPath; a JsonPathError says what it has that the runner does not read. */
export const parsePath = (text: string): Path => {
  const reader = new Reader(text.trim());
  if (!reader.rest.startsWith('$')) reader.fail('does not start with $');
  const path = pathFrom(reader, false);
  if (reader.rest !== '') reader.fail('has text the runner does not read');
  return path;
};
