// A JSONPath Choice state's rules ("Choice Rules", Amazon States Language specification,
// https://states-language.net/spec.html#choice-state): And, Or, Not, and a Variable compared by String*, Numeric*,
// Boolean*, Timestamp* (each also `...Path`, comparing with another path's value) or tested by IsNull, IsPresent,
// IsNumeric, IsString, IsBoolean, IsTimestamp. A comparison of values of another type is false; a Variable absent from
// the input is States.Runtime, except for IsPresent.

import { optionalPath, type PathScope, pathValue } from './data-flow.ts';
import { runtimeError } from './errors.ts';

type Rule = Record<string, unknown>;

/** An ISO 8601 timestamp as the specification takes it (RFC 3339, a time zone required). */
const isTimestamp = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value);

/** `*` any run of characters, `\*` a star ("StringMatches"). */
const matches = (value: string, pattern: string) => {
  const source = pattern
    .split(/(\\\*|\*)/)
    .map((part) => (part === '*' ? '.*' : part === '\\*' ? '\\*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(value);
};

const order = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);

type Kind = 'String' | 'Numeric' | 'Boolean' | 'Timestamp';
const kinds: Record<Kind, (value: unknown) => boolean> = {
  String: (value) => typeof value === 'string',
  Numeric: (value) => typeof value === 'number',
  Boolean: (value) => typeof value === 'boolean',
  Timestamp: isTimestamp,
};

const compared = (kind: Kind, relation: string, value: unknown, other: unknown) => {
  if (!kinds[kind](value) || !kinds[kind](other)) return false;
  if (relation === 'Matches') return matches(value as string, other as string);
  const a = kind === 'Timestamp' ? Date.parse(value as string) : (value as number | string);
  const b = kind === 'Timestamp' ? Date.parse(other as string) : (other as number | string);
  const sign = kind === 'Boolean' ? (a === b ? 0 : 1) : order(a, b);
  const wanted: Record<string, boolean> = {
    Equals: sign === 0,
    LessThan: sign < 0,
    GreaterThan: sign > 0,
    LessThanEquals: sign <= 0,
    GreaterThanEquals: sign >= 0,
  };
  return wanted[relation] ?? false;
};

const tests: Record<string, (value: unknown) => boolean> = {
  IsNull: (value) => value === null,
  IsNumeric: (value) => typeof value === 'number',
  IsString: (value) => typeof value === 'string',
  IsBoolean: (value) => typeof value === 'boolean',
  IsTimestamp: isTimestamp,
};

const operator =
  /^(String|Numeric|Boolean|Timestamp)(Equals|LessThan|GreaterThan|LessThanEquals|GreaterThanEquals|Matches)(Path)?$/;

const comparison = (rule: Rule, scope: PathScope) => {
  const variable = String(rule.Variable);
  const value = optionalPath(variable, scope);
  if ('IsPresent' in rule) return (value !== undefined) === rule.IsPresent;
  if (value === undefined)
    throw runtimeError(`Invalid path '${variable}': The choice state's condition path references an invalid value.`);
  for (const [key, expected] of Object.entries(rule)) {
    if (key in tests) return tests[key]?.(value) === expected;
    const found = operator.exec(key);
    if (!found) continue;
    const other = found[3] ? pathValue(String(expected), scope, key) : expected;
    return compared(found[1] as Kind, found[2] as string, value, other);
  }
  throw runtimeError(`a Choice rule on ${variable} has no comparison the local runner knows`);
};

/** Whether `rule` holds for `scope`'s input. */
export const holds = (rule: Rule, scope: PathScope): boolean => {
  if (Array.isArray(rule.And)) return (rule.And as Rule[]).every((inner) => holds(inner, scope));
  if (Array.isArray(rule.Or)) return (rule.Or as Rule[]).some((inner) => holds(inner, scope));
  if (typeof rule.Not === 'object' && rule.Not !== null) return !holds(rule.Not as Rule, scope);
  return comparison(rule, scope);
};
