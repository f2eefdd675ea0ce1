// What a parsed JSONPath (parse.ts) selects, as Jayway JsonPath selects it: each step applied to every value the steps
// before it selected; a filter keeps an array's items that pass it, or an object itself when it passes; a deep scan
// (`..x`) applies `x` to the value and to every value inside it, each before what it holds, members and items in
// their order (`..` then a filter keeps the objects among them that pass); `length()` is the size of an array or
// object selected, the last one's when the steps before it select several. In a filter, a path from `@` reads the item and
// one from `$` the whole document; a path alone passes when it selects something (a member whose value is null or
// false included); `==` compares JSON values (numbers by value, lists and objects member by member, a number and a
// string as Jayway does: `same`), `<` and the like numbers by value and strings (a number against a string: its
// text) by text, `=~` a string, number or boolean (a list: any item) with the whole regular expression, `in` and `nin`
// a value with a list's items; a missing operand passes `!=` and `nin` alone.
import type { Comparator, Expression, Literal, Operand, Path, Step } from './parse.ts';

export interface Evaluation {
  /** A reference path (Step Functions): a filter's `@` matches objects alone, never a scalar item. */
  objectsOnly?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether `path` names one value at most (members and single items alone), or a list. A path ending in `length()`
 * names one value: the size of the last value the steps before it select (Jayway's reading of a function's path).
 */
export const isDefinite = (path: Path): boolean =>
  path.steps.at(-1)?.kind === 'length' ||
  path.steps.every((step) => step.kind === 'member' || (step.kind === 'index' && step.indexes.length === 1));

/** `value` and every value inside it, each before what it holds. */
const descendants = (value: unknown): unknown[] => [
  value,
  ...(Array.isArray(value) ? value : isObject(value) ? Object.values(value) : []).flatMap(descendants),
];

const itemsAt = (list: unknown[], indexes: number[]) =>
  indexes.flatMap((index) => {
    const position = index < 0 ? list.length + index : index;
    return position >= 0 && position < list.length ? [list[position]] : [];
  });

/** What one step (not `length()`) selects in one value. */
const stepOn = (step: Step, value: unknown, root: unknown, options: Evaluation): unknown[] => {
  switch (step.kind) {
    case 'member':
      return isObject(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'index':
      return Array.isArray(value) ? itemsAt(value, step.indexes) : [];
    case 'slice':
      return Array.isArray(value) ? value.slice(step.from, step.to) : [];
    case 'every':
      return Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
    case 'filter':
      if (Array.isArray(value)) return value.filter((item) => passes(step.test, item, root, options));
      return isObject(value) && passes(step.test, value, root, options) ? [value] : [];
    case 'scan':
      if (step.each.kind === 'filter') {
        const test = step.each.test;
        return descendants(value).filter((node) => isObject(node) && passes(test, node, root, options));
      }
      return descendants(value).flatMap((node) => stepOn(step.each, node, root, options));
    case 'length':
      return [];
  }
};

const sizeOf = (value: unknown) =>
  Array.isArray(value) ? value.length : isObject(value) ? Object.keys(value).length : undefined;

/** Every value `path` selects, from `current` (`@`) or `root` (`$`). */
const matches = (path: Path, root: unknown, current: unknown = root, options: Evaluation = {}): unknown[] => {
  let values = [path.root === '@' ? current : root];
  for (const step of path.steps)
    values =
      step.kind === 'length'
        ? values.map(sizeOf).filter((size) => size !== undefined)
        : values.flatMap((value) => stepOn(step, value, root, options));
  return values;
};

/** The value `path` selects: the one a definite path names (undefined when absent), or the list of them. */
export const selection = (path: Path, root: unknown, options: Evaluation = {}): unknown => {
  const found = matches(path, root, root, options);
  return isDefinite(path) ? found.at(-1) : found;
};

const missing = Symbol('missing');
type Value = unknown;

/** Whether two JSON values are the same value. */
const sameJson = (left: unknown, right: unknown): boolean => {
  if (Array.isArray(left) || Array.isArray(right))
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameJson(item, right[index]))
    );
  if (isObject(left) && isObject(right)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]))
    );
  }
  return left === right;
};

const operandValue = (operand: Operand, item: unknown, root: unknown, options: Evaluation): Value => {
  if ('literal' in operand) return operand.literal;
  if ('pattern' in operand) return operand.pattern;
  const found = matches(operand.path, root, item, options);
  if (!isDefinite(operand.path)) return found;
  return found.length === 0 ? missing : found.at(-1);
};

const numberText = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Two operands equal as Jayway compares them: lists and objects as JSON; a number and a string by the string's value
 * when the number comes first (`1 == '1.0'`), by the number's text when the string does (`'1' == 1`, not `'1.0'`).
 */
const same = (left: Value, right: Value): boolean => {
  if (typeof left === 'number' && typeof right === 'string') return numberText.test(right) && Number(right) === left;
  if (typeof left === 'string' && typeof right === 'number') return left === String(right);
  return sameJson(left, right);
};

/** Numbers by value, strings by text; a number against a string by its text, as Jayway orders them. */
const ordered = (left: Value, right: Value, holds: (order: number) => boolean) => {
  if (typeof left === 'number' && typeof right === 'number') return holds(left - right);
  const texts = [left, right].map((value) => (typeof value === 'number' ? String(value) : value));
  const [a, b] = texts;
  if (typeof a === 'string' && typeof b === 'string') return holds(a < b ? -1 : a > b ? 1 : 0);
  return false;
};

const within = (left: Value, right: Value) =>
  left !== missing && Array.isArray(right) && right.some((item) => same(left, item as Literal));

/** `=~`: a string, number or boolean matched as text, or a list when any of its items matches. */
const matched = (left: Value, pattern: Value): boolean => {
  if (!(pattern instanceof RegExp)) return false;
  if (Array.isArray(left)) return left.some((item) => matched(item, pattern));
  return ['string', 'number', 'boolean'].includes(typeof left) && pattern.test(String(left));
};

const compared = (comparator: Comparator, left: Value, right: Value): boolean => {
  const both = left !== missing && right !== missing;
  switch (comparator) {
    case '==':
      return both && same(left, right);
    case '!=':
      return !(both && same(left, right));
    case '<':
      return ordered(left, right, (order) => order < 0);
    case '<=':
      return ordered(left, right, (order) => order <= 0);
    case '>':
      return ordered(left, right, (order) => order > 0);
    case '>=':
      return ordered(left, right, (order) => order >= 0);
    case '=~':
      return matched(left, right);
    case 'in':
      return within(left, right);
    case 'nin':
      return !within(left, right);
  }
};

/** Whether `item` passes the filter `test`. */
const passes = (test: Expression, item: unknown, root: unknown, options: Evaluation): boolean => {
  if (options.objectsOnly && !isObject(item)) return false;
  switch (test.kind) {
    case 'and':
      return passes(test.left, item, root, options) && passes(test.right, item, root, options);
    case 'or':
      return passes(test.left, item, root, options) || passes(test.right, item, root, options);
    case 'not':
      return !passes(test.operand, item, root, options);
    case 'exists':
      return matches(test.path, root, item, options).length > 0;
    case 'compare':
      return compared(
        test.comparator,
        operandValue(test.left, item, root, options),
        operandValue(test.right, item, root, options),
      );
  }
};
