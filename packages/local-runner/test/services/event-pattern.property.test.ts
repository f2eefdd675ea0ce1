// Random patterns against random events: the matcher must agree with an oracle written apart from it, the way Event
// Ruler's README describes matching (github.com/aws/event-ruler, README.md): a rule is compiled to flat field paths
// ("detail.state"), each `$or` forking the rule into branches ("The $or Primitive"); an event is flattened to its leaf
// values by path, arrays crushed out ("JSON Array Matching"); a branch matches when every path has a value one of its
// conditions accepts. The operators are read from "Comparison operators for use in event patterns in Amazon
// EventBridge" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html). The events
// hold no arrays of objects (where the two descriptions part: array-consistent matching), and the oracle implements
// each operator otherwise than the matcher (a backtracking wildcard, IPv4 blocks by arithmetic). A failure prints
// fast-check's seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { compilePattern, matchesPattern } from '../../src/services/event-pattern.ts';

type Scalar = string | number | boolean | null;
type Json = Scalar | Json[] | { [key: string]: Json };

const keys = ['a', 'b'];
// With the characters real paths, ARNs and keys carry (`:`, `*`, `%`, `/`, spaces).
const words = ['', 'run', 'running', 'RUNNING', 'ing', 'a*b', 'arn:x/r un%20ing', '10.0.0.7', '192.168.4.20'];

const scalar = fc.oneof(
  { arbitrary: fc.constantFrom(...words), weight: 4 },
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom(0.5, 2.5, 5.0),
  fc.constantFrom(true, false, null),
);

/** An event object `depth` levels deep at most (arrays hold scalars only: see above). */
const eventAt = (depth: number): fc.Arbitrary<Record<string, Json>> => {
  const values: fc.Arbitrary<Json>[] = [scalar, fc.array(scalar, { maxLength: 3 })];
  if (depth > 0) values.push(eventAt(depth - 1));
  return fc.dictionary(fc.constantFrom(...keys), fc.oneof(...values), {
    maxKeys: 3,
  });
};
const event = eventAt(2);

const operator = fc.oneof(
  scalar.map((value) => value),
  fc.constantFrom(...words).map((prefix) => ({ prefix })),
  fc.constantFrom(...words).map((suffix) => ({ suffix })),
  fc.constantFrom(...words).map((text) => ({ prefix: { 'equals-ignore-case': text } })),
  fc.constantFrom(...words).map((text) => ({ 'equals-ignore-case': text })),
  fc
    .constantFrom('run*', '*ing', 'r*n*g', '*', 'a\\*b', '*.*', '1*7', 'arn:*un%20*', '* *')
    .map((wildcard) => ({ wildcard })),
  fc
    .constantFrom<Json>(
      'run',
      ['run', 'stop'],
      5,
      [0.5, 2, 12],
      { prefix: 'ru' },
      { suffix: 'ng' },
      { 'equals-ignore-case': ['RUN', 'Stop'] },
      { wildcard: 'r*' },
    )
    .map((value) => ({ 'anything-but': value })),
  fc
    .tuple(
      fc.integer({ min: -4, max: 6 }),
      fc.integer({ min: 1, max: 8 }),
      fc.constantFrom('>', '>='),
      fc.constantFrom('<', '<='),
    )
    .map(([low, width, lower, upper]) => ({
      numeric: [lower, low, upper, low + width],
    })),
  fc
    .tuple(fc.constantFrom('=', '<', '<=', '>', '>='), fc.integer({ min: -2, max: 10 }))
    .map(([op, n]) => ({ numeric: [op, n] })),
  fc.constantFrom('10.0.0.0/24', '10.0.0.0/8', '192.168.0.0/16', '10.0.1.0/32', '0.0.0.0/0').map((cidr) => ({ cidr })),
  fc.boolean().map((exists) => ({ exists })),
);

/** A pattern object `depth` levels deep at most, with an `$or` of two such objects now and then. */
const patternAt = (depth: number): fc.Arbitrary<Record<string, Json>> => {
  const leaf = fc.array(operator, { minLength: 1, maxLength: 3 });
  const field: fc.Arbitrary<Json> = depth > 0 ? fc.oneof(leaf, leaf, patternAt(depth - 1)) : leaf;
  const fields = fc.dictionary(fc.constantFrom(...keys), field, {
    minKeys: 1,
    maxKeys: 2,
  });
  if (depth === 0) return fields;
  const alternatives = fc.option(fc.tuple(patternAt(depth - 1), patternAt(depth - 1)), { freq: 3 });
  return fc.tuple(fields, alternatives).map(([named, or]) => (or === null ? named : { ...named, $or: or as Json }));
};
const pattern = patternAt(2);

// ---- the oracle ----------------------------------------------------------------------------------------------------

/** A field named both outside and inside an `$or` must pass both: each path keeps every array it is given. */
type Branch = Map<string, Json[][]>;

/** The rule's branches: each a map of flat path to the field's array (`$or` forks the branches made so far). */
const branchesOf = (node: Record<string, Json>, path: string, start: Branch[]): Branch[] => {
  let branches = start;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$or') {
      const forks = value as Record<string, Json>[];
      branches = forks.flatMap((fork) =>
        branchesOf(
          fork,
          path,
          branches.map((branch) => new Map(branch)),
        ),
      );
    } else if (Array.isArray(value)) {
      for (const branch of branches) branch.set(path + key, [...(branch.get(path + key) ?? []), value]);
    } else {
      branches = branchesOf(value as Record<string, Json>, `${path}${key}.`, branches);
    }
  }
  return branches;
};

/** The event's leaves by flat path; arrays add each of their values at the array's own path. */
const flatten = (value: Json, path: string, into: Map<string, Scalar[]>) => {
  if (Array.isArray(value)) for (const item of value) flatten(item, path, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) flatten(inner, path === '' ? key : `${path}.${key}`, into);
  else into.set(path, [...(into.get(path) ?? []), value]);
};

const glob = (pattern: string, text: string): boolean => {
  if (pattern === '') return text === '';
  if (pattern.startsWith('\\')) return text[0] === pattern[1] && glob(pattern.slice(2), text.slice(1));
  if (pattern[0] === '*')
    return [...Array(text.length + 1).keys()].some((at) => glob(pattern.slice(1), text.slice(at)));
  return text[0] === pattern[0] && glob(pattern.slice(1), text.slice(1));
};

const ipv4 = (text: string) => {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
};

const inBlock = (block: string, text: string) => {
  const [base, bits] = block.split('/');
  const address = ipv4(text);
  const size = 2 ** (32 - Number(bits));
  return address !== undefined && Math.floor(address / size) === Math.floor((ipv4(base as string) as number) / size);
};

const lower = (text: string) => text.toLowerCase();

const affix = (kind: string, wanted: Json, value: Scalar) => {
  if (typeof value !== 'string') return false;
  const caseless = typeof wanted === 'object' && wanted !== null;
  const text = caseless ? lower(value) : value;
  const part = caseless
    ? lower((wanted as Record<string, string>)['equals-ignore-case'] as string)
    : (wanted as string);
  return kind === 'prefix'
    ? text.slice(0, part.length) === part
    : text.slice(text.length - part.length) === part && text.length >= part.length;
};

const compare = (op: string, left: number, right: number) =>
  ({
    '=': left === right,
    '<': left < right,
    '<=': left <= right,
    '>': left > right,
    '>=': left >= right,
  })[op];

const excludedBy = (operand: Json, value: Scalar): boolean => {
  if (Array.isArray(operand)) return operand.some((item) => item === value);
  if (operand === null || typeof operand !== 'object') return operand === value;
  const [[kind, inner]] = Object.entries(operand) as [[string, Json]];
  if (typeof value !== 'string') return false;
  if (kind === 'equals-ignore-case') return (inner as string[]).some((item) => lower(item) === lower(value));
  if (kind === 'wildcard') return glob(inner as string, value);
  return affix(kind, inner, value);
};

/** Whether one value passes one element of the field's array (anything but `exists`). */
const accepts = (element: Json, value: Scalar): boolean => {
  if (element === null || typeof element !== 'object') return element === value;
  const [[kind, operand]] = Object.entries(element) as [[string, Json]];
  switch (kind) {
    case 'prefix':
    case 'suffix':
      return affix(kind, operand, value);
    case 'equals-ignore-case':
      return typeof value === 'string' && lower(value) === lower(operand as string);
    case 'wildcard':
      return typeof value === 'string' && glob(operand as string, value);
    case 'anything-but':
      return !excludedBy(operand, value);
    case 'numeric': {
      const list = operand as (string | number)[];
      const pairs = list.flatMap((item, at) => (at % 2 === 0 ? [[item, list[at + 1]] as [string, number]] : []));
      return typeof value === 'number' && pairs.every(([op, bound]) => compare(op, value, bound));
    }
    default:
      return typeof value === 'string' && inBlock(operand as string, value);
  }
};

const oracle = (rule: Record<string, Json>, input: Record<string, Json>) => {
  const leaves = new Map<string, Scalar[]>();
  flatten(input, '', leaves);
  return branchesOf(rule, '', [new Map()]).some((branch) =>
    [...branch].every(([path, arrays]) => {
      const values = leaves.get(path) ?? [];
      return arrays.every((elements) =>
        elements.some((element) => {
          const exists = element !== null && typeof element === 'object' && 'exists' in element;
          return exists
            ? (element as { exists: boolean }).exists === values.length > 0
            : values.some((value) => accepts(element, value));
        }),
      );
    }),
  );
};

test('the matcher agrees with the flattening oracle on random patterns and events', () => {
  let matched = 0;
  fc.assert(
    fc.property(pattern, fc.array(event, { minLength: 1, maxLength: 6 }), (rule, events) => {
      const compiled = compilePattern(rule);
      for (const input of events) {
        const expected = oracle(rule, input);
        matched += expected ? 1 : 0;
        expect(matchesPattern(compiled, input)).toBe(expected);
      }
    }),
    { numRuns: 2000 },
  );
  // The generators reach both answers often enough to mean something.
  expect(matched).toBeGreaterThan(200);
});
