// How a state's fields make its input, result and output, in each query language.
// JSONPath ("Processing input and output in Step Functions", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-input-output-filtering.html): InputPath, Parameters,
// ResultSelector, ResultPath and OutputPath, a field ending in `.$` taking a path (`$.x` the input, `$$.x` the
// context object, `$name` a variable) or an intrinsic function.
// JSONata ("Transforming data with JSONata in Step Functions",
// https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html): a string `{% expression %}` anywhere in
// Arguments, Output, Assign, Items, Condition, ... evaluated by the `jsonata` package with `$states` (input, result,
// errorOutput, context) and the workflow's variables bound, and the functions Step Functions adds ($partition, $range,
// $hash, $random, $uuid, $parse). A failed expression is States.QueryEvaluationError.
import { randomUUID } from 'node:crypto';
import jsonata from 'jsonata';
import { runtimeError, StatesError } from './errors.ts';
import { hashed, intrinsic, isIntrinsic } from './intrinsic-functions.ts';
import { placed, required, selected } from './json-path.ts';

export type Variables = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a JSONPath field reads: the state's input (or result), the context object, the variables. */
export interface PathScope {
  value: unknown;
  context: unknown;
  variables: Variables;
}

/** The value a `.$` field's path or intrinsic gives in `scope`. */
export const pathValue = (text: string, scope: PathScope, field: string): unknown => {
  if (isIntrinsic(text)) return intrinsic(text, (path) => pathValue(path, scope, field));
  if (text.startsWith('$$')) return required(text.slice(1), scope.context, field);
  const variable = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text);
  if (variable) {
    const name = variable[1] as string;
    if (!Object.hasOwn(scope.variables, name)) throw runtimeError(`The variable $${name} is not defined`);
    return required(`$${text.slice(variable[0].length)}`, scope.variables[name], field);
  }
  return required(text, scope.value, field);
};

/** A payload template (Parameters, ResultSelector, ItemSelector, Assign) filled from `scope`. */
export const filled = (template: unknown, scope: PathScope): unknown => {
  if (Array.isArray(template)) return template.map((item) => filled(item, scope));
  if (!isObject(template)) return template;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$') && typeof value === 'string') result[key.slice(0, -2)] = pathValue(value, scope, key);
    else result[key] = filled(value, scope);
  }
  return result;
};

/** InputPath or OutputPath: absent the whole value, null `{}`. */
export const filtered = (value: unknown, path: unknown, field: string) => {
  if (path === undefined) return value;
  if (path === null) return {};
  return required(String(path), value, field);
};

/** ResultPath: absent or `$` the result, null the input, else the result put in the input where it names. */
export const withResult = (input: unknown, result: unknown, path: unknown) => {
  if (path === undefined) return result;
  if (path === null) return input;
  return placed(input, String(path), result);
};

/** A reference path's value or undefined (a Choice rule's Variable, which may be absent: IsPresent). */
export const optionalPath = (text: string, scope: PathScope) => {
  if (text.startsWith('$$')) return selected(text.slice(1), scope.context, true);
  const variable = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text);
  if (variable) {
    const name = variable[1] as string;
    return Object.hasOwn(scope.variables, name)
      ? selected(`$${text.slice(variable[0].length)}`, scope.variables[name], true)
      : undefined;
  }
  return selected(text, scope.value, true);
};

// JSONata.

/** `$states` as a JSONata state sees it ("Reserved variable: $states"). */
export interface StatesVariable {
  input: unknown;
  context: unknown;
  result?: unknown;
  errorOutput?: unknown;
}

const expressionText = /^\{%([\s\S]*)%\}$/;
const compiled = new Map<string, jsonata.Expression>();

const rangeOf = (start: number, end: number, step: number) => {
  const values: number[] = [];
  if (step === 0) return values;
  for (let value = start; step > 0 ? value <= end : value >= end; value += step) values.push(value);
  return values;
};

/** The functions Step Functions adds to JSONata ("JSONata functions provided by Step Functions"). */
const addedFunctions = (expression: jsonata.Expression) => {
  expression.registerFunction('partition', (items: unknown[], size: number) => {
    const chunks: unknown[][] = [];
    for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
    return chunks;
  });
  expression.registerFunction('range', (start: number, end: number, step: number) => rangeOf(start, end, step));
  expression.registerFunction('hash', (value: unknown, algorithm: string) => hashed(value, algorithm));
  expression.registerFunction('random', () => Math.random());
  expression.registerFunction('uuid', () => randomUUID());
  expression.registerFunction('parse', (text: string) => JSON.parse(text));
};

const expressionOf = (text: string) => {
  let expression = compiled.get(text);
  if (!expression) {
    try {
      expression = jsonata(text);
    } catch (error) {
      throw new StatesError(
        'States.QueryEvaluationError',
        `the JSONata expression ${text} is not valid: ${(error as Error).message}`,
      );
    }
    addedFunctions(expression);
    compiled.set(text, expression);
  }
  return expression;
};

/** A JSONata result as JSON (its sequences made plain arrays); undefined stays undefined. */
const plain = (value: unknown) => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown));

/** One `{% %}` string evaluated; a failure or an undefined result is States.QueryEvaluationError. */
const evaluatedExpression = async (text: string, states: StatesVariable, variables: Variables, field: string) => {
  const expression = expressionOf(text);
  let value: unknown;
  try {
    value = plain(await expression.evaluate(undefined, { ...variables, states }));
  } catch (error) {
    throw new StatesError(
      'States.QueryEvaluationError',
      `An error occurred while evaluating the expression ${text} of the field '${field}': ${(error as Error).message}`,
    );
  }
  if (value === undefined)
    throw new StatesError(
      'States.QueryEvaluationError',
      `The JSONata expression '${text}' specified for the field '${field}' returned nothing (undefined)`,
    );
  return value;
};

/** `template` with every `{% %}` string evaluated. */
export const evaluatedFields = async (
  template: unknown,
  states: StatesVariable,
  variables: Variables,
  field: string,
): Promise<unknown> => {
  if (typeof template === 'string') {
    const expression = expressionText.exec(template.trim());
    return expression ? evaluatedExpression(expression[1] as string, states, variables, field) : template;
  }
  if (Array.isArray(template))
    return Promise.all(template.map((item) => evaluatedFields(item, states, variables, field)));
  if (!isObject(template)) return template;
  const entries = await Promise.all(
    Object.entries(template).map(async ([key, value]) => [
      key,
      await evaluatedFields(value, states, variables, `${field}.${key}`),
    ]),
  );
  return Object.fromEntries(entries);
};
