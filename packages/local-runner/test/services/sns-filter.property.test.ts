// A subscription's filter policy on the MessageAttributes scope, as the local SNS applies it (sns-filter.ts: the
// attributes mapped to one object, matched by the shared matcher), against an oracle written apart from both, from
// "Amazon SNS message filtering" (https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html) and its pages
// on attribute matching ("String value matching", "Numeric value matching", "Key matching"): a policy's keys must all
// match (AND), a key's values any one (OR); a String attribute matches strings, a Number attribute numbers, a
// String.Array attribute when one of its elements does; a Binary attribute is ignored. The oracle reads each raw
// attribute (DataType, StringValue) itself. Seeded with the documented example of "Amazon SNS example filter
// policies" (https://docs.aws.amazon.com/sns/latest/dg/example-filter-policies.html). A failure prints fast-check's
// seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { compileFilter, type MessageAttribute, passesFilter } from '../../src/services/sns-filter.ts';

type Condition =
  | string
  | number
  | { prefix: string }
  | { 'anything-but': string[] }
  | { numeric: [string, number] | [string, number, string, number] }
  | { exists: boolean };
type Policy = Record<string, Condition[]>;

const names = ['store', 'price', 'tags'];
const words = ['example_corp', 'example', 'other', 'rugby', 'soccer', '100'];
const numbers = [0, 99, 100, 210.75, -5];

const attribute: fc.Arbitrary<MessageAttribute> = fc.oneof(
  fc.constantFrom(...words).map((StringValue) => ({ DataType: 'String', StringValue })),
  fc.constantFrom(...numbers).map((n) => ({ DataType: 'Number', StringValue: String(n) })),
  fc
    .array(fc.oneof(fc.constantFrom(...words), fc.constantFrom(...numbers)), { maxLength: 3 })
    .map((items) => ({ DataType: 'String.Array', StringValue: JSON.stringify(items) })),
  fc.constant({ DataType: 'Binary', BinaryValue: Buffer.from('example_corp').toString('base64') }),
);
const attributes = fc.dictionary(fc.constantFrom(...names), attribute, { maxKeys: 3 });

const condition: fc.Arbitrary<Condition> = fc.oneof(
  fc.constantFrom(...words),
  fc.constantFrom(...numbers),
  fc.constantFrom('ex', 'rug', 'o').map((prefix) => ({ prefix })),
  fc.subarray(words, { minLength: 1, maxLength: 2 }).map((excluded) => ({ 'anything-but': excluded })),
  fc
    .tuple(fc.constantFrom('=', '<', '>=', '>'), fc.constantFrom(...numbers))
    .map(([op, n]): Condition => ({ numeric: [op, n] })),
  fc.constantFrom(-10, 0, 100).map((low): Condition => ({ numeric: ['>=', low, '<', low + 150] })),
  fc.boolean().map((exists) => ({ exists })),
);
const policy: fc.Arbitrary<Policy> = fc.dictionary(
  fc.constantFrom(...names),
  fc.array(condition, { minLength: 1, maxLength: 3 }),
  { minKeys: 1, maxKeys: 3 },
);

/** The values an attribute offers a policy: a String its text, a Number its number, a String.Array its elements. */
const offered = (given: MessageAttribute | undefined): (string | number)[] => {
  if (given === undefined || given.StringValue === undefined) return [];
  if (given.DataType === 'String') return [given.StringValue];
  if (given.DataType === 'Number') return [Number.parseFloat(given.StringValue)];
  if (given.DataType === 'String.Array') return JSON.parse(given.StringValue) as (string | number)[];
  return [];
};

const compare = (op: string, value: number, bound: number) =>
  op === '='
    ? value === bound
    : op === '<'
      ? value < bound
      : op === '<='
        ? value <= bound
        : op === '>'
          ? value > bound
          : value >= bound;

const conditionHolds = (wanted: Condition, values: (string | number)[], present: boolean) => {
  if (typeof wanted === 'string' || typeof wanted === 'number') return values.includes(wanted);
  if ('exists' in wanted) return wanted.exists === present;
  if ('prefix' in wanted) return values.some((v) => typeof v === 'string' && v.startsWith(wanted.prefix));
  if ('anything-but' in wanted) return values.some((v) => !(wanted['anything-but'] as unknown[]).includes(v));
  const [op1, n1, op2, n2] = wanted.numeric;
  return values.some(
    (v) => typeof v === 'number' && compare(op1, v, n1) && (op2 === undefined || compare(op2, v, n2 as number)),
  );
};

/** The oracle: every key of the policy has a condition its attribute satisfies. */
const oracle = (given: Policy, message: Record<string, MessageAttribute>) =>
  Object.entries(given).every(([name, conditions]) => {
    const values = offered(message[name]);
    // A Binary attribute is ignored: as absent to the policy. So is an empty String.Array, as Event Ruler reads an
    // empty array (no value); the SNS pages do not say (docs/services.md says so).
    const present = values.length > 0;
    return conditions.some((wanted) => conditionHolds(wanted, values, present));
  });

const applied = (given: Policy, message: Record<string, MessageAttribute>) =>
  passesFilter(compileFilter(JSON.stringify(given), undefined), '', message);

test("the documented example's policy accepts its message", () => {
  const documented: Record<string, MessageAttribute> = {
    customer_interests: { DataType: 'String.Array', StringValue: '["soccer", "rugby", "hockey"]' },
    store: { DataType: 'String', StringValue: 'example_corp' },
    event: { DataType: 'String', StringValue: 'order_placed' },
    price_usd: { DataType: 'Number', StringValue: '210.75' },
  };
  const accepting = {
    store: ['example_corp'],
    event: [{ 'anything-but': 'order_cancelled' }],
    customer_interests: ['rugby', 'football', 'baseball'],
    price_usd: [{ numeric: ['>=', 100] }],
  };
  expect(passesFilter(compileFilter(JSON.stringify(accepting), 'MessageAttributes'), '', documented)).toBe(true);
  // The same policy, one key changed to a value the message does not have, rejects it.
  const rejecting = { ...accepting, price_usd: [{ numeric: ['<', 100] }] };
  expect(passesFilter(compileFilter(JSON.stringify(rejecting), 'MessageAttributes'), '', documented)).toBe(false);
});

test('random policies over random attributes agree with the oracle', () => {
  fc.assert(
    fc.property(policy, attributes, (given, message) => {
      expect(applied(given, message)).toBe(oracle(given, message));
    }),
    {
      numRuns: 2000,
      examples: [
        [
          { store: ['example_corp'], price: [{ numeric: ['>=', 100] }] },
          {
            store: { DataType: 'String', StringValue: 'example_corp' },
            price: { DataType: 'Number', StringValue: '210.75' },
          },
        ],
        [{ tags: ['rugby'] }, { tags: { DataType: 'String.Array', StringValue: '["soccer","rugby"]' } }],
        [{ store: [{ exists: false }] }, { store: { DataType: 'Binary', BinaryValue: 'AAA=' } }],
        [{ price: [100] }, { price: { DataType: 'Number', StringValue: '100' } }],
        [{ price: ['100'] }, { price: { DataType: 'Number', StringValue: '100' } }],
      ],
    },
  );
});
