// A JSONPath state's paths, read when the state machine is loaded, as Step Functions validates a definition: a path
// the runner does not read, a reference path using what reference paths may not ("Reference Paths", Step Functions
// Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html), or a
// ResultPath that does not name one place refuses the start, naming the state and the field.
import { jsonPathProblem, referencePathProblem } from '../../json-path/index.ts';
import { isReferenceField } from './json-path.ts';

type State = Record<string, unknown>;

const isObject = (value: unknown): value is State =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A path on the context object (`$$.x`) or a variable (`$name.x`) read as a path on its own value (`$.x`). */
const asDocumentPath = (text: string) => {
  if (text.startsWith('$$')) return text.slice(1);
  const variable = /^\$[A-Za-z_][A-Za-z0-9_]*/.exec(text);
  return variable ? `$${text.slice(variable[0].length)}` : text;
};

/** What is wrong with the path `text` of `field` (a template's `.$` field is a plain path), or undefined. */
const problemOf = (field: string, text: string) => {
  const path = asDocumentPath(text);
  if (field === 'ResultPath') return referencePathProblem(path, true);
  return isReferenceField(field) && !field.endsWith('.$') ? referencePathProblem(path) : jsonPathProblem(path);
};

/** Each path of a payload template (Parameters, ResultSelector, ItemSelector, Assign): its `.$` fields'. */
const templatePaths = (template: unknown, field: string): [string, string][] => {
  if (Array.isArray(template)) return template.flatMap((item) => templatePaths(item, field));
  if (!isObject(template)) return [];
  return Object.entries(template).flatMap(([key, value]): [string, string][] =>
    key.endsWith('.$') && typeof value === 'string'
      ? value.startsWith('$')
        ? [[`${field}.${key}`, value]]
        : []
      : templatePaths(value, field),
  );
};

/** Each path of a Choice rule (its Variable, its `...Path` comparisons), the rules in And, Or and Not included. */
const rulePaths = (rule: unknown): [string, string][] => {
  if (!isObject(rule)) return [];
  const nested = [...(Array.isArray(rule.And) ? rule.And : []), ...(Array.isArray(rule.Or) ? rule.Or : []), rule.Not];
  const own = Object.entries(rule).filter(
    (entry): entry is [string, string] =>
      (entry[0] === 'Variable' || /^[A-Z]\w*Path$/.test(entry[0])) && typeof entry[1] === 'string',
  );
  return [...own.map(([key, value]): [string, string] => [key, value]), ...nested.flatMap(rulePaths)];
};

const pathFields = ['InputPath', 'OutputPath', 'ResultPath', 'ItemsPath', 'SecondsPath', 'TimestampPath'];
const taskPathFields = ['TimeoutSecondsPath', 'HeartbeatSecondsPath'];

/** Why the runner refuses `state`'s paths (the field and the problem), or undefined. */
export const pathRefusal = (state: State): string | undefined => {
  const paths: [string, string][] = [
    ...[...pathFields, ...taskPathFields]
      .filter((field) => typeof state[field] === 'string')
      .map((field): [string, string] => [field, state[field] as string]),
    ...['Parameters', 'ResultSelector', 'ItemSelector', 'Assign'].flatMap((field) =>
      templatePaths(state[field], field),
    ),
    ...(Array.isArray(state.Choices) ? state.Choices.flatMap(rulePaths) : []),
  ];
  for (const [field, text] of paths) {
    const problem = problemOf(field, text);
    if (problem) return `its ${field}: ${problem}`;
  }
  return undefined;
};
