// Generated POST /plants requests (fast-check), and what the contract says each must be answered — an oracle written
// from openapi.yaml and docs/api.md alone, sharing no code with the implementation: big.js reads ids, a hand-written table
// says which media types are JSON in UTF-8, and each generated body says itself whether its bytes are UTF-8.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { expect } from '@jest/globals';
import { Big } from 'big.js';
import fc from 'fast-check';
import { contractViolations, createPlantRequest } from './independent-contract.ts';

interface PlantRequest {
  /** The Content-Type header as sent (name and value), or none. */
  contentType: [name: string, value: string] | undefined;
  bytes: Buffer;
  /** Whether `bytes` is UTF-8 (the generator knows: it inserted the invalid sequences itself). */
  utf8: boolean;
}

/** Media types, and whether the contract reads them as JSON in UTF-8 (else 415). */
const mediaTypes: [string, boolean][] = [
  ['application/json', true],
  ['application/json; charset=utf-8', true],
  ['application/json;charset=UTF-8', true],
  ['application/json ; charset=utf-8', true],
  ['application/json; charset="utf-8"', true],
  ['Application/JSON', true],
  ['application/merge-patch+json', true],
  ['application/vnd.plant+json; version=1', true],
  ['application/json; charset=iso-8859-1', false],
  ['application/json; charset=utf-16', false],
  ['text/plain', false],
  ['text/json', false],
  ['application/x-www-form-urlencoded', false],
  ['application/jsonx', false],
  ['', false],
  ['*/*', false],
];
const acceptable = new Map(mediaTypes);
const jsonTypes = mediaTypes.filter(([, ok]) => ok).map(([type]) => type);
const rejectedTypes = mediaTypes.filter(([, ok]) => !ok).map(([type]) => type);

const headerNames = ['Content-Type', 'content-type', 'CONTENT-TYPE', 'cOnTeNt-TyPe'];

/** Byte sequences that are not UTF-8 (RFC 3629): a lone Latin-1 byte, FF, truncations, surrogates, overlongs. */
const invalidUtf8 = [[0xe9], [0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], [0x80]];

/** Id literals around every edge: int64 bounds and one beyond, huge, negative zero, fractions, exponents. */
const idLiterals = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: -1000, max: 1000 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '9223372036854775807',
      '-9223372036854775808',
      '9223372036854775808',
      '-9223372036854775809',
      '9007199254740993',
      '12345678901234567890',
      '-12345678901234567890',
      '1e400',
      '-1e400',
      '-0',
      '0',
      '1.0',
      '1E+18',
      '1e3',
      '2.5e1',
      '1.5',
      '1.00000000000000000001',
      '9.223372036854775807e18',
      '9.2233720368547758075e18',
      '1e-7',
    ),
  },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('"1"', 'null', 'true', '[]', '{}', '"9223372036854775807"') },
);

/** Text values: mostly well-formed (any script), sometimes with lone surrogates, control characters or quotes. */
const texts = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\n\t"\\', '\u2028\u2029', '\ud800', 'a\udfffb', '😀', 'Café') },
);
const textValues = fc.oneof(
  { weight: 6, arbitrary: texts.map((text) => JSON.stringify(text)) },
  { weight: 1, arbitrary: fc.constantFrom('5', 'null', 'true', '[]', '{"a":1}') },
);

/** A JSON object as text, its members in any order, keys possibly repeated (JSON.parse keeps the last). */
const objectText = (members: [string, string][]) =>
  `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;

const extraMembers = fc.array(
  fc.tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.string({ maxLength: 8 }) },
      { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'name', 'tag') },
    ),
    fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      fc.constant('{"prototype":{}}'),
      fc.constant('{"__proto__":{"admin":true}}'),
    ),
  ),
  { maxLength: 3 },
);

/** Bodies that are NewPlants or near them: the members shuffled, extras added, any of them missing. */
const newPlantish = fc
  .record({ id: idLiterals, name: textValues, tag: textValues, extras: extraMembers }, { requiredKeys: ['extras'] })
  .chain(({ id, name, tag, extras }) => {
    const members: [string, string][] = [
      ...(id === undefined ? [] : [['id', id] as [string, string]]),
      ...(name === undefined ? [] : [['name', name] as [string, string]]),
      ...(tag === undefined ? [] : [['tag', tag] as [string, string]]),
      ...extras,
    ];
    return fc.shuffledSubarray(members, { minLength: members.length }).map(objectText);
  });

/** Arrays or objects nested `depth` deep around a NewPlant member. */
const nested = fc
  .oneof(fc.integer({ min: 60, max: 70 }), fc.constant(3000))
  .map((depth) => `{"id":7,"name":"deep","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`);

/** NewPlants as a client writes them: an int64 id, a name, maybe a tag, maybe fields the schema does not name. */
const validNewPlant = fc
  .record(
    {
      id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      name: fc.string({ unit: 'grapheme', maxLength: 30 }),
      tag: fc.string({ unit: 'grapheme', maxLength: 10 }),
      extra: fc.dictionary(fc.string({ minLength: 4, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    },
    { requiredKeys: ['id', 'name', 'extra'] },
  )
  .map(({ id, name, tag, extra }) =>
    objectText([
      ['id', String(id)],
      ['name', JSON.stringify(name)],
      ...(tag === undefined ? [] : [['tag', JSON.stringify(tag)] as [string, string]]),
      ...Object.entries(extra).map(([key, value]): [string, string] => [key, JSON.stringify(value)]),
    ]),
  );

const bodyTexts = fc.oneof(
  { weight: 12, arbitrary: validNewPlant },
  { weight: 12, arbitrary: newPlantish },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: nested },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '{', '{"id":1,"name":"x",}', '{"id":01,"name":"x"}', 'NaN') },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(65_500, 66 * 1024)
      .map((size) => `{"id":1,"name":"big","pad":"${'x'.repeat(size - 30)}"}`),
  },
);

export const plantRequests = (): fc.Arbitrary<PlantRequest> =>
  fc
    .record({
      text: bodyTexts,
      invalid: fc.oneof(
        { weight: 9, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...invalidUtf8), fc.nat()) },
      ),
      contentType: fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...headerNames), fc.constantFrom(...rejectedTypes)) },
        { weight: 20, arbitrary: fc.tuple(fc.constantFrom(...headerNames), fc.constantFrom(...jsonTypes)) },
      ),
    })
    .map(({ text, invalid, contentType }) => {
      const valid = Buffer.from(text, 'utf8');
      if (!invalid) return { contentType, bytes: valid, utf8: text.isWellFormed() };
      const [sequence, position] = invalid;
      const at = valid.length === 0 ? 0 : position % valid.length;
      const bytes = Buffer.concat([valid.subarray(0, at), Buffer.from(sequence), valid.subarray(at)]);
      return { contentType, bytes, utf8: false };
    });

type Expectation =
  | { status: 400 | 413 | 415 }
  /** A valid NewPlant: 200 unless the id is stored with other content (409). */
  | { status: 'create'; id: string; name: string; tag: string | undefined };

const maxBodyBytes = 64 * 1024;
const maxDepth = 64;
const int64 = { min: new Big('-9223372036854775808'), max: new Big('9223372036854775807') };

const depthOf = (value: unknown): number => {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
};

const hasPrototypeKeys = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return true;
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
      return true;
    }
    if (hasPrototypeKeys(child)) return true;
  }
  return false;
};

/** The id a literal denotes, as DynamoDB's decimal text, when it is an integer in the int64 range. */
const int64Of = (literal: string | undefined): string | undefined => {
  if (literal === undefined) return undefined;
  let value: Big;
  try {
    value = new Big(literal);
  } catch {
    return undefined;
  }
  if (!value.round(0, Big.roundDown).eq(value) || value.lt(int64.min) || value.gt(int64.max)) return undefined;
  return value.eq(0) ? '0' : value.toFixed(0);
};

/** What the contract says `request` must be answered, before looking at what is stored. */
export const expectedAnswer = ({ contentType, bytes, utf8 }: PlantRequest): Expectation => {
  if (bytes.length > maxBodyBytes) return { status: 413 };
  if (!contentType || !acceptable.get(contentType[1])) return { status: 415 };
  if (!utf8) return { status: 400 };
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status: 400 };
  }
  if (depthOf(parsed) > maxDepth || hasPrototypeKeys(parsed)) return { status: 400 };
  // Parsed again (now that its depth is known to be small) with the ids' own source text, which JSON.parse gives
  // revivers in Node 24: a double would round it.
  const idSources = new Map<object, string>();
  const plant: unknown = JSON.parse(
    text,
    function (this: object, key: string, value: unknown, context?: { source?: string }) {
      if (key === 'id' && typeof value === 'number' && context?.source) idSources.set(this, context.source);
      return value;
    },
  );
  if (typeof plant !== 'object' || plant === null || Array.isArray(plant)) return { status: 400 };
  const { name, tag } = plant as Record<string, unknown>;
  const id = int64Of(idSources.get(plant));
  const isText = (value: unknown): value is string => typeof value === 'string' && value.isWellFormed();
  if (id === undefined || !isText(name) || (tag !== undefined && !isText(tag))) return { status: 400 };
  return { status: 'create', id, name, tag };
};

type StoredItem = Record<string, AttributeValue> | undefined;

/**
 * Judges `answer` to `expected`'s request: valid against openapi.yaml; the status the contract says; for a valid
 * NewPlant, 200 with the plant and the plant stored exactly (or 409 when `before`, the item stored for its id before
 * the request, has other content), and nothing stored changed by a retry or a conflict. `stored` reads an item.
 */
export const judgeAnswer = async (
  expected: Expectation,
  answer: { statusCode: number; headers?: Record<string, unknown>; body: string },
  before: StoredItem,
  stored: (id: string) => Promise<StoredItem>,
) => {
  expect(contractViolations(answer, createPlantRequest)).toEqual([]);
  if (expected.status !== 'create') {
    expect(answer.statusCode).toBe(expected.status);
    return;
  }
  const sameAsStored = before === undefined || (before.name?.S === expected.name && before.tag?.S === expected.tag);
  expect(answer.statusCode).toBe(sameAsStored ? 200 : 409);
  const after = await stored(expected.id);
  if (sameAsStored) {
    expect(JSON.parse(answer.body)).toEqual({
      name: expected.name,
      ...(expected.tag !== undefined && { tag: expected.tag }),
    });
    expect(after?.id).toEqual({ N: expected.id });
    expect(after?.name).toEqual({ S: expected.name });
    expect(after?.tag).toEqual(expected.tag === undefined ? undefined : { S: expected.tag });
  }
  if (before) expect(after).toEqual(before); // a retry or a conflict changes nothing
};
