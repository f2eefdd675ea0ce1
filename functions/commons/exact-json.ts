// JSON loses integers beyond 2^53 both ways (9007199254740993 becomes ...992): JSON.parse rounds them, and
// JSON.stringify throws on a bigint. Node >= 21 hands a reviver each number's source text, and JSON.rawJSON writes a
// number's text as given: this file uses both so that an int64 is read and written exactly. No JSON library offers
// this as a reviver and a writer for the built-in JSON, and each is a few lines, so they are written here.

/** A JSON number literal: sign, integer digits, fraction digits, exponent. */
const numberLiteral = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** More decimal digits than any int64 has: such values need no exact form, the int64 check rejects them anyway. */
const digitsBeyondInt64 = 20;

/**
 * The value of a JSON number literal, exact where it matters:
 * - an integer (also written as `1.0` or `1e3`) is a `number` within ±2^53 and an exact `bigint` beyond;
 * - any other number is the `number` JSON.parse made, except that a non-integer whose nearest double is an
 *   integer (`1.00000000000000000001`) becomes NaN, so that no integer check can mistake it for one.
 */
const exactNumber = (source: string, parsed: number): number | bigint => {
  const match = numberLiteral.exec(source);
  if (!match) return parsed;
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  const digits = `${integer}${fraction}`.replace(/^0+/, '');
  if (digits === '') return parsed; // zero
  const significant = digits.replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  if (scale < 0) return Number.isInteger(parsed) ? Number.NaN : parsed;
  if (significant.length + scale > digitsBeyondInt64) return parsed;
  const exact = BigInt(`${sign}${significant}`) * 10n ** BigInt(scale);
  return Number.isSafeInteger(parsed) ? parsed : exact;
};

/** A JSON.parse reviver that applies `exactNumber` to every number. */
export const exactNumbers = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === 'number' && context?.source !== undefined ? exactNumber(context.source, value) : value;

// JSON.rawJSON (TC39's "JSON.parse source text access", the same proposal as the reviver's `source`; in V8 since
// Node 21) writes a number's text as given. TypeScript's lib does not declare it yet.
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/**
 * JSON.stringify, with every bigint written as its exact decimal digits (JSON.stringify throws on a bigint, and a
 * `number` past 2^53 has already lost digits): an int64 leaves as it was stored.
 */
export const stringifyExact = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? rawJSON(item.toString()) : item));
