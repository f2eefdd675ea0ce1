// The event pattern language of EventBridge rules, which SNS filter policies and Lambda's event filters also speak
// ("Creating event patterns" and "Comparison operators for use in event patterns in Amazon EventBridge",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html; "Amazon SNS message
// filtering", https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html; "Control which events Lambda sends
// to your function", https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html). AWS's own matcher is
// the open-source Event Ruler (github.com/aws/event-ruler, README.md): its documented rules are followed here where the
// service pages are silent (a number in a pattern also matches the same number written otherwise; an array in the event
// matches when one of its values does; two fields are matched within the same element of an array of objects).
// Written here because no maintained npm package implements the language; Node's `net.BlockList` answers `cidr`.
//
// A pattern is compiled once (`compilePattern`, which refuses a malformed pattern naming the field and the reason, as
// the services answer an invalid pattern), then matched against any number of events (`matchesPattern`).
import { BlockList, isIP } from 'node:net';

/** A malformed pattern; the message names the field and what is wrong. Each service maps it to its own error. */
export class PatternError extends Error {
  override name = 'PatternError';
}

type Scalar = string | number | boolean | null;

/** One of a field's conditions: a value test, or whether the field has a value at all. */
type Condition = { exists: boolean } | { test: (value: Scalar) => boolean };

/** A pattern object: its fields (each leaf a list of conditions, any of which matches), and its `$or` groups. */
interface PatternNode {
  fields: [string, PatternNode | Condition[]][];
  alternatives: PatternNode[][];
}

export interface CompiledPattern {
  readonly root: PatternNode;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** Numbers AWS compares as numbers ("between -5.0e9 and +5.0e9 inclusive", Event Ruler's README). */
const NUMERIC_LIMIT = 5e9;

const fail = (path: string, reason: string): never => {
  throw new PatternError(`Event pattern is not valid: "${path}": ${reason}`);
};

const stringOf = (value: unknown, path: string, operator: string): string =>
  typeof value === 'string' ? value : fail(path, `${operator} takes a string`);

/** A `wildcard` value as a regular expression: `*` any run of characters, `\*` and `\\` the characters themselves. */
const wildcardTest = (pattern: string, path: string) => {
  if (/(?<!\\)\*\*/.test(pattern)) fail(path, 'wildcard does not allow consecutive "*"');
  const tokens = pattern.match(/\\[\s\S]?|\*|[^*\\]+/g) ?? [];
  const source = tokens
    .map((token) => {
      if (token === '*') return '[\\s\\S]*';
      if (!token.startsWith('\\')) return token.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&');
      if (token !== '\\*' && token !== '\\\\') fail(path, 'wildcard escapes only "*" and "\\"');
      return token;
    })
    .join('');
  const expression = new RegExp(`^${source}$`);
  return (value: string) => expression.test(value);
};

const ignoringCase = (text: string) => text.toLowerCase();

/** A string test from `prefix`/`suffix`, whose value may be `{"equals-ignore-case": text}`. */
const affixTest = (operator: 'prefix' | 'suffix', value: unknown, path: string) => {
  const caseless = isObject(value) && Object.keys(value).length === 1 && 'equals-ignore-case' in value;
  const affix = stringOf(caseless ? value['equals-ignore-case'] : value, path, operator);
  const wanted = caseless ? ignoringCase(affix) : affix;
  return (text: string) => {
    const seen = caseless ? ignoringCase(text) : text;
    return operator === 'prefix' ? seen.startsWith(wanted) : seen.endsWith(wanted);
  };
};

/** A list of strings from one string or an array of strings (`anything-but`'s `equals-ignore-case` and `wildcard`). */
const stringsOf = (value: unknown, path: string, operator: string): string[] =>
  (Array.isArray(value) ? value : [value]).map((item) => stringOf(item, path, operator));

const onStrings =
  (test: (text: string) => boolean) =>
  (value: Scalar): boolean =>
    typeof value === 'string' && test(value);

/** A literal in a pattern: a number also matches the same number written otherwise (`5` matches `5.0`). */
const literalTest =
  (literal: Scalar) =>
  (value: Scalar): boolean =>
    value === literal;

/** `anything-but`: a value, a list of strings or of numbers, or a `prefix`, `suffix`, `equals-ignore-case`, `wildcard`. */
const anythingButTest = (operand: unknown, path: string): ((value: Scalar) => boolean) => {
  if (isObject(operand)) {
    const [operator, ...more] = Object.keys(operand);
    if (operator === undefined || more.length > 0) fail(path, 'anything-but takes one operator');
    const inner = operand[operator as string];
    if (operator === 'prefix' || operator === 'suffix') return negate(onStrings(affixTest(operator, inner, path)));
    if (operator === 'equals-ignore-case') {
      const excluded = new Set(stringsOf(inner, path, operator).map(ignoringCase));
      return negate(onStrings((text) => excluded.has(ignoringCase(text))));
    }
    if (operator === 'wildcard') {
      const tests = stringsOf(inner, path, operator).map((pattern) => wildcardTest(pattern, path));
      return negate(onStrings((text) => tests.some((test) => test(text))));
    }
    return fail(path, `anything-but does not take "${operator}"`);
  }
  const excluded = Array.isArray(operand) ? operand : [operand];
  const kinds = new Set(excluded.map((item) => typeof item));
  if (excluded.length === 0 || kinds.size !== 1 || !(kinds.has('string') || kinds.has('number')))
    fail(path, 'anything-but takes a string, a number, or a list of only strings or only numbers');
  return negate((value) => excluded.includes(value));
};

const negate =
  (test: (value: Scalar) => boolean) =>
  (value: Scalar): boolean =>
    !test(value);

const comparisons: Record<string, (left: number, right: number) => boolean> = {
  '=': (left, right) => left === right,
  '<': (left, right) => left < right,
  '<=': (left, right) => left <= right,
  '>': (left, right) => left > right,
  '>=': (left, right) => left >= right,
};

/** `numeric`: `["=", n]`, or at most one lower (`>`, `>=`) and one upper (`<`, `<=`) bound, the lower first. */
const numericTest = (operand: unknown, path: string) => {
  if (!Array.isArray(operand) || operand.length === 0 || operand.length % 2 !== 0 || operand.length > 4)
    return fail(path, 'numeric takes one or two pairs of an operator and a number');
  const pairs: [string, number][] = [];
  for (let at = 0; at < operand.length; at += 2) {
    const [operator, bound] = [operand[at], operand[at + 1]];
    if (typeof operator !== 'string' || !(operator in comparisons)) fail(path, `numeric operator ${String(operator)}`);
    if (typeof bound !== 'number' || Math.abs(bound) > NUMERIC_LIMIT)
      fail(path, `numeric bound must be a number between -${NUMERIC_LIMIT} and ${NUMERIC_LIMIT}`);
    pairs.push([operator as string, bound as number]);
  }
  const [first, second] = pairs;
  if (second !== undefined) {
    const ordered = first?.[0].startsWith('>') && second[0].startsWith('<') && first[1] < second[1];
    if (!ordered) fail(path, 'numeric with two bounds takes a lower bound (">", ">=") then a greater upper bound');
  }
  return (value: Scalar) =>
    typeof value === 'number' &&
    Math.abs(value) <= NUMERIC_LIMIT &&
    pairs.every(([operator, bound]) => (comparisons[operator] as (l: number, r: number) => boolean)(value, bound));
};

/** `cidr`: an IPv4 or IPv6 block; a string value that is an address inside it matches. */
const cidrTest = (operand: unknown, path: string) => {
  const [address, bits, ...more] = stringOf(operand, path, 'cidr').split('/');
  const family = isIP(address ?? '');
  const prefix = Number(bits);
  const widest = family === 6 ? 128 : 32;
  if (family === 0 || more.length > 0 || !/^\d+$/.test(bits ?? '') || prefix > widest)
    fail(path, `cidr takes an IPv4 or IPv6 block such as 10.0.0.0/24, not ${JSON.stringify(operand)}`);
  const block = new BlockList();
  block.addSubnet(address as string, prefix, family === 6 ? 'ipv6' : 'ipv4');
  return onStrings((text) => {
    const kind = isIP(text);
    return kind !== 0 && block.check(text, kind === 6 ? 'ipv6' : 'ipv4');
  });
};

/** One element of a field's array: a literal, or an object of one operator. */
const conditionOf = (element: unknown, path: string): Condition => {
  if (isScalar(element)) return { test: literalTest(element) };
  if (!isObject(element)) return fail(path, 'a value must be a string, number, true, false, null or an operator');
  const [operator, ...more] = Object.keys(element);
  if (operator === undefined || more.length > 0) return fail(path, 'an operator object takes exactly one operator');
  const operand = element[operator];
  switch (operator) {
    case 'prefix':
    case 'suffix':
      return { test: onStrings(affixTest(operator, operand, path)) };
    case 'equals-ignore-case': {
      const wanted = ignoringCase(stringOf(operand, path, operator));
      return { test: onStrings((text) => ignoringCase(text) === wanted) };
    }
    case 'wildcard':
      return {
        test: onStrings(wildcardTest(stringOf(operand, path, operator), path)),
      };
    case 'anything-but':
      return { test: anythingButTest(operand, path) };
    case 'numeric':
      return { test: numericTest(operand, path) };
    case 'cidr':
      return { test: cidrTest(operand, path) };
    case 'exists':
      return typeof operand === 'boolean' ? { exists: operand } : fail(path, 'exists takes true or false');
    default:
      return fail(path, `unknown operator "${operator}"`);
  }
};

/** `$or` is an alternative only when it holds two or more objects (Event Ruler's README, "The $or Primitive"). */
const isAlternatives = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length >= 2 && value.every(isObject);

const nodeOf = (pattern: Record<string, unknown>, path: string): PatternNode => {
  const node: PatternNode = { fields: [], alternatives: [] };
  if (Object.keys(pattern).length === 0) fail(path || '(pattern)', 'an empty object is not allowed');
  for (const [key, value] of Object.entries(pattern)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key === '$or' && isAlternatives(value)) node.alternatives.push(value.map((branch) => nodeOf(branch, path)));
    else if (isObject(value)) node.fields.push([key, nodeOf(value, at)]);
    else if (Array.isArray(value) && value.length > 0)
      node.fields.push([key, value.map((element) => conditionOf(element, at))]);
    else fail(at, 'must be an object or a non-empty array');
  }
  return node;
};

/** Compiles a pattern (already parsed from JSON), or throws a PatternError naming what is wrong. */
export const compilePattern = (pattern: unknown): CompiledPattern => {
  if (!isObject(pattern)) throw new PatternError('Event pattern is not valid: a pattern is a JSON object');
  return { root: nodeOf(pattern, '') };
};

/** A field's leaf values: a scalar, or the scalars of an array (nested arrays flattened); an object has none. */
const leavesOf = (value: unknown): Scalar[] => {
  if (isScalar(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(leavesOf);
  return [];
};

/** The objects a nested pattern is matched within: the value itself, or each object of an array. */
const objectsOf = (value: unknown): Record<string, unknown>[] => {
  if (isObject(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(objectsOf);
  return [];
};

const leafMatches = (conditions: Condition[], value: unknown) => {
  const leaves = leavesOf(value);
  return conditions.some((condition) =>
    'exists' in condition ? leaves.length > 0 === condition.exists : leaves.some(condition.test),
  );
};

const nodeMatches = (node: PatternNode, value: Record<string, unknown> | undefined): boolean =>
  node.fields.every(([key, expected]) => {
    const field = value?.[key];
    if (Array.isArray(expected)) return leafMatches(expected, field);
    const objects = objectsOf(field);
    return objects.length === 0
      ? nodeMatches(expected, undefined)
      : objects.some((inner) => nodeMatches(expected, inner));
  }) && node.alternatives.every((branches) => branches.some((branch) => nodeMatches(branch, value)));

/** Whether `event` (parsed JSON) matches the compiled pattern. */
export const matchesPattern = (pattern: CompiledPattern, event: unknown): boolean =>
  nodeMatches(pattern.root, isObject(event) ? event : undefined);
