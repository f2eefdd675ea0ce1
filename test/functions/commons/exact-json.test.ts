import { describe, expect, test } from '@jest/globals';
import { exactNumbers, stringifyExact } from '../../../functions/commons/exact-json.ts';

const parse = (text: string) => JSON.parse(text, exactNumbers) as unknown;

describe('exactNumbers', () => {
  test.each([
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['9223372036854775808', 9223372036854775808n],
    ['1.8446744073709551616e19', 18446744073709551616n],
    ['12345678901234567890', 12345678901234567890n],
  ])('keeps the integer %s exact as a bigint', (text, expected) => {
    expect(parse(text)).toBe(expected);
  });

  test.each([
    ['42', 42],
    ['-0', -0],
    ['20.0', 20],
    ['2.1e1', 21],
    ['1E3', 1000],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['1.5', 1.5],
    ['1e-7', 1e-7],
    ['1e300', 1e300],
  ])('parses %s as the number it denotes', (text, expected) => {
    expect(parse(text)).toBe(expected);
  });

  test('turns a non-integer that a double would round to an integer into NaN', () => {
    expect(parse('1.00000000000000000001')).toBeNaN();
    expect(parse('9007199254740993.5')).toBeNaN();
    expect(parse('1e-400')).toBeNaN();
  });

  test('leaves everything but numbers alone', () => {
    expect(parse('{"a": ["9007199254740993", true, null, {"b": 9007199254740993}]}')).toEqual({
      a: ['9007199254740993', true, null, { b: 9007199254740993n }],
    });
  });
});

describe('stringifyExact', () => {
  test.each([
    [9223372036854775807n, '9223372036854775807'],
    [-9223372036854775808n, '-9223372036854775808'],
    [9007199254740993n, '9007199254740993'],
    [0n, '0'],
  ])('writes the bigint %s as its exact digits', (value, text) => {
    expect(stringifyExact({ id: value, ids: [value] })).toBe(`{"id":${text},"ids":[${text}]}`);
  });

  test('reads back exactly through exactNumbers, the ids past 2^53 as bigints', () => {
    const plant = { id: 9223372036854775807n, low: -9223372036854775808n, name: 'Hoya', size: 3 };
    expect(parse(stringifyExact(plant))).toEqual(plant);
  });

  test('writes everything else as JSON.stringify does', () => {
    const value = { a: [1.5, 'text', null, true], b: { c: 'é\u2028' }, d: undefined };
    expect(stringifyExact(value)).toBe(JSON.stringify(value));
  });
});
