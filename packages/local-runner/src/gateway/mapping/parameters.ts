// Request and response parameter mappings ("Parameter mapping for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/rest-api-parameter-mapping.html): an integration
// request's header, query string or path parameter, or a method response's header, from a static value (`'text'`),
// the method request's parameters or body, the integration response's header or body, a stage variable or a context
// variable. rest-integrations.ts has refused any other expression where the app was read.
import { selectJsonPath } from '../../json-path/index.ts';
import type { MethodParameters } from './template.ts';

/** What an expression may read. `integration`: the integration response's, once there is one. */
export interface ParameterSources {
  params: MethodParameters;
  body: string;
  stageVariables: Record<string, string>;
  context: Record<string, unknown>;
  integration?: { headers: Record<string, string>; body: string };
}

/** A value of `record` by name, its case ignored (HTTP header names). */
const headerOf = (record: Record<string, string>, name: string) =>
  Object.entries(record).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/** JSON text of what `path` selects in `body` (text as it is); undefined when the body is not JSON. */
const fromBody = (body: string, path: string | undefined) => {
  if (path === undefined) return body;
  try {
    const selected = selectJsonPath(JSON.parse(body), `$.${path}`);
    if (selected === undefined) return undefined;
    return typeof selected === 'string' ? selected : JSON.stringify(selected);
  } catch {
    return undefined;
  }
};

/** A dotted path's value in `record` (`$context.identity.sourceIp`), as text. */
const contextValue = (record: Record<string, unknown>, path: string) => {
  const value = path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], record);
  return value === undefined || value === null ? undefined : String(value);
};

/** The value `expression` maps to, or undefined when its source is absent (the parameter is then not sent). */
export const mappedValue = (expression: string, sources: ParameterSources): string | undefined => {
  const literal = /^'(.*)'$/s.exec(expression)?.[1];
  if (literal !== undefined) return literal;
  const [, where = '', rest = ''] =
    /^(method\.request|integration\.response|stageVariables|context)\.?(.*)$/.exec(expression) ?? [];
  if (where === 'stageVariables') return sources.stageVariables[rest];
  if (where === 'context') return contextValue(sources.context, rest);
  const [part = '', name] = rest.split(/\.(.*)/s);
  if (where === 'method.request') {
    if (part === 'body') return fromBody(sources.body, name);
    if (part === 'path') return sources.params.path[name ?? ''];
    if (part === 'querystring' || part === 'multivaluequerystring') return sources.params.querystring[name ?? ''];
    return headerOf(sources.params.header, name ?? '');
  }
  if (!sources.integration) return undefined;
  if (part === 'body') return fromBody(sources.integration.body, name);
  return headerOf(sources.integration.headers, name ?? '');
};

/** Each mapping of `parameters` (`<prefix><name>` → expression) that has a value, by name. */
export const mappedParameters = (
  parameters: Record<string, string>,
  prefix: string,
  sources: ParameterSources,
): Record<string, string> => {
  const mapped: Record<string, string> = {};
  for (const [key, expression] of Object.entries(parameters)) {
    if (!key.startsWith(prefix)) continue;
    const value = mappedValue(expression, sources);
    if (value !== undefined) mapped[key.slice(prefix.length)] = value;
  }
  return mapped;
};
