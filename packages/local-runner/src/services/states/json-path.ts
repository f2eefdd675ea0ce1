// Paths of the Amazon States Language's JSONPath states ("Paths", Amazon States Language specification,
// https://states-language.net/spec.html#path; "Using JSONPath paths", Step Functions Developer Guide): `$` the value,
// `.name` and `['name']` a field, `[n]` an item (from the end when negative), `[*]` and `.*` every item or field,
// `[a:b]` a slice, `[a,b]` items. A path with a wildcard, a slice or items selects a list; a reference path (ResultPath)
// names one place. A filter (`[?(...)]`) or a deep scan (`..`) is not served locally: said as the state's error.
import { runtimeError, StatesError } from './errors.ts';

type Step =
  | { field: string }
  | { index: number }
  | { every: true }
  | { slice: [number | undefined, number | undefined] }
  | { items: number[] };

const fieldName = /^\.([^.[\]]+)/;
const quoted = /^\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]/;
const bracket = /^\[([^\]]*)\]/;

const bracketStep = (inside: string, path: string): Step => {
  const text = inside.trim();
  if (text === '*') return { every: true };
  if (/^-?\d+$/.test(text)) return { index: Number(text) };
  const slice = /^(-?\d*):(-?\d*)$/.exec(text);
  if (slice) return { slice: [slice[1] ? Number(slice[1]) : undefined, slice[2] ? Number(slice[2]) : undefined] };
  if (/^-?\d+(\s*,\s*-?\d+)+$/.test(text)) return { items: text.split(',').map(Number) };
  throw runtimeError(`the path ${path} uses [${inside}], which the local runner does not evaluate`);
};

/** The steps of `path` after its leading `$`. */
const stepsOf = (path: string): Step[] => {
  if (!path.startsWith('$')) throw runtimeError(`${path} is not a path (it does not start with $)`);
  const steps: Step[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    if (rest.startsWith('..'))
      throw runtimeError(`the path ${path} uses "..", which the local runner does not evaluate`);
    const field = rest.startsWith('.*') ? undefined : fieldName.exec(rest);
    const quote = quoted.exec(rest);
    const other = bracket.exec(rest);
    if (rest.startsWith('.*')) {
      steps.push({ every: true });
      rest = rest.slice(2);
    } else if (field) {
      steps.push({ field: field[1] as string });
      rest = rest.slice(field[0].length);
    } else if (quote) {
      steps.push({ field: (quote[1] ?? quote[2] ?? '').replace(/\\(.)/g, '$1') });
      rest = rest.slice(quote[0].length);
    } else if (other) {
      steps.push(bracketStep(other[1] as string, path));
      rest = rest.slice(other[0].length);
    } else throw runtimeError(`${path} is not a path the local runner reads`);
  }
  return steps;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const itemAt = (list: unknown[], index: number) => list[index < 0 ? list.length + index : index];

/** What one step selects in each of `values`. */
const applied = (values: unknown[], step: Step): unknown[] =>
  values.flatMap((value): unknown[] => {
    if ('field' in step) return isObject(value) && Object.hasOwn(value, step.field) ? [value[step.field]] : [];
    if ('every' in step) return Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
    if (!Array.isArray(value)) return [];
    if ('index' in step) {
      const item = itemAt(value, step.index);
      return item === undefined ? [] : [item];
    }
    if ('slice' in step) return value.slice(step.slice[0], step.slice[1]);
    return step.items.map((index) => itemAt(value, index)).filter((item) => item !== undefined);
  });

/** Whether `path` selects a list (a wildcard, a slice or items) rather than one value. */
const isIndefinite = (steps: Step[]) => steps.some((step) => !('field' in step) && !('index' in step));

/** The value `path` selects in `root`; undefined when it selects nothing (a definite path naming what is absent). */
export const selected = (path: string, root: unknown): unknown => {
  const steps = stepsOf(path);
  const found = steps.reduce<unknown[]>((values, step) => applied(values, step), [root]);
  return isIndefinite(steps) ? found : found[0];
};

/** The value `path` selects in `root`, or States.Runtime naming the path and what it was read for. */
export const required = (path: string, root: unknown, readFor: string): unknown => {
  const value = selected(path, root);
  if (value === undefined)
    throw runtimeError(`The JSONPath '${path}' specified for the field '${readFor}' could not be found in the input`);
  return value;
};

/**
 * `input` with `result` put where the reference path `path` names ("ResultPath"): `$` the result alone; each field on
 * the way made when absent. A path through a value that is not an object is States.ResultPathMatchFailure.
 */
export const placed = (input: unknown, path: string, result: unknown): unknown => {
  const steps = stepsOf(path);
  if (steps.length === 0) return result;
  const root: unknown = structuredClone(input);
  let at: unknown = root;
  for (const [index, step] of steps.entries()) {
    const last = index === steps.length - 1;
    if ('field' in step && isObject(at)) {
      if (last) at[step.field] = result;
      else {
        if (at[step.field] === undefined) at[step.field] = {};
        at = at[step.field];
      }
    } else if ('index' in step && Array.isArray(at) && itemAt(at, step.index) !== undefined) {
      const position = step.index < 0 ? at.length + step.index : step.index;
      if (last) at[position] = result;
      else at = at[position];
    } else
      throw new StatesError(
        'States.ResultPathMatchFailure',
        `Unable to apply ResultPath "${path}" to input ${JSON.stringify(input)}`,
      );
  }
  return root;
};
