// Paths of the Amazon States Language's JSONPath states ("Paths", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html), read by the runner's one
// JSONPath reader (src/json-path/): a definite path names one value (absent: States.Runtime where a value is
// required), any other selects a list. A reference path (ResultPath, ItemsPath, a Choice rule's Variable and its
// `...Path` comparisons, SecondsPath, TimestampPath, TimeoutSecondsPath, HeartbeatSecondsPath) takes no function, no `=~`, `in` or `nin`,
// no filter reading another value (refused at start, path-checks.ts), and its filters' `@` matches objects alone.
import { JsonPathError, placeSteps, selectJsonPath } from '../../json-path/index.ts';
import { runtimeError, StatesError } from './errors.ts';

/** Whether a field's path is a reference path: every `...Path` field but InputPath and OutputPath, and Variable. */
export const isReferenceField = (field: string) =>
  field === 'Variable' || (field.endsWith('Path') && field !== 'InputPath' && field !== 'OutputPath');

/** The value `path` selects in `root` (undefined when a definite path names what is absent). */
export const selected = (path: string, root: unknown, reference = false): unknown => {
  try {
    return selectJsonPath(root, path, { objectsOnly: reference });
  } catch (error) {
    if (error instanceof JsonPathError) throw runtimeError(error.message);
    throw error;
  }
};

/** The value `path` selects in `root`, or States.Runtime naming the path and what it was read for. */
export const required = (path: string, root: unknown, readFor: string): unknown => {
  const value = selected(path, root, isReferenceField(readFor));
  if (value === undefined)
    throw runtimeError(`The JSONPath '${path}' specified for the field '${readFor}' could not be found in the input`);
  return value;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const itemAt = (list: unknown[], index: number) => list[index < 0 ? list.length + index : index];

const steps = (path: string) => {
  try {
    return placeSteps(path);
  } catch (error) {
    if (error instanceof JsonPathError) throw runtimeError(error.message);
    throw error;
  }
};

/**
 * `input` with `result` put where the reference path `path` names ("ResultPath"): `$` the result alone; each field on
 * the way made when absent. A path through a value that is not an object is States.ResultPathMatchFailure.
 */
export const placed = (input: unknown, path: string, result: unknown): unknown => {
  const names = steps(path);
  if (names.length === 0) return result;
  const root: unknown = structuredClone(input);
  let at: unknown = root;
  for (const [index, step] of names.entries()) {
    const last = index === names.length - 1;
    if (typeof step === 'string' && isObject(at)) {
      if (last) at[step] = result;
      else {
        if (at[step] === undefined) at[step] = {};
        at = at[step];
      }
    } else if (typeof step === 'number' && Array.isArray(at) && itemAt(at, step) !== undefined) {
      const position = step < 0 ? at.length + step : step;
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
