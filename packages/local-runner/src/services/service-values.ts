// The --service-values file: values of SSM parameters and secrets a user keeps out of the template (as `sam local
// --env-vars` keeps variables), over the template's and beside them:
//   { "Parameters": { "<name>": "<value>" | { "Value": "<value>", "Type": "String" | "StringList" | "SecureString" } },
//     "Secrets": { "<name>": "<secret string>" } }
import { readFileSync } from 'node:fs';
import { RunnerError } from '../errors.ts';

export interface ServiceValues {
  parameters: { name: string; value: string; type?: string }[];
  secrets: { name: string; value: string }[];
}

const shape =
  'expected { "Parameters": { "<name>": "<value>" or { "Value": "<value>", "Type": "String|StringList|SecureString" } }, "Secrets": { "<name>": "<secret string>" } }';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const parameterOf = (name: string, given: unknown, file: string) => {
  if (typeof given === 'string') return { name, value: given };
  const { Value, Type, ...rest } = isObject(given) ? given : {};
  const typed = Type === undefined || ['String', 'StringList', 'SecureString'].includes(String(Type));
  if (typeof Value !== 'string' || !typed || Object.keys(rest).length > 0)
    throw new RunnerError(`${file}: Parameters ${name}: ${shape}`);
  return { name, value: Value, ...(typeof Type === 'string' && { type: Type }) };
};

/** The file's values; a file of another shape is refused, naming what is wrong. */
export const serviceValuesOf = (file: string | undefined): ServiceValues | undefined => {
  if (file === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RunnerError(`${file}: ${error instanceof SyntaxError ? 'not JSON' : (error as Error).message}; ${shape}`);
  }
  const { Parameters = {}, Secrets = {}, ...rest } = isObject(parsed) ? parsed : { rest: parsed };
  if (!isObject(parsed) || Object.keys(rest).length > 0 || !isObject(Parameters) || !isObject(Secrets))
    throw new RunnerError(`${file}: ${shape}`);
  const secrets = Object.entries(Secrets).map(([name, value]) => {
    if (typeof value !== 'string') throw new RunnerError(`${file}: Secrets ${name}: ${shape}`);
    return { name, value };
  });
  return { parameters: Object.entries(Parameters).map(([name, value]) => parameterOf(name, value, file)), secrets };
};
