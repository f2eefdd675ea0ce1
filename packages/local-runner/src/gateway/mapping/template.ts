// Mapping templates as API Gateway runs them: Velocity (VTL) by velocityjs, with API Gateway's own variables on top
// ("Variables for data transformations for API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html):
// `$input` (body, json, path, params), `$util` (util.ts), `$context` (with `requestOverride` / `responseOverride`)
// and `$stageVariables`. What a template uses beyond them is refused where the app is read (`templateRefusal`).
import { Compile, parse } from 'velocityjs';
import { jsonPathProblem, selectJsonPath } from '../../json-path/index.ts';
import { javaStringMethods } from './java-methods.ts';
import { utilFunctions, utilVariable } from './util.ts';

/** A request's parameters as `$input.params()` gives them. */
export interface MethodParameters {
  path: Record<string, string>;
  querystring: Record<string, string>;
  header: Record<string, string>;
}

/** What a template renders over: the payload (the request's, or the integration response's) and the request. */
export interface MappingInput {
  body: string;
  params: MethodParameters;
  /** `$context`: the request's context variables; a template's `#set` of an override lands here. */
  context: Record<string, unknown>;
  stageVariables: Record<string, string>;
}

/** A template's failure to render: the body is not JSON where the template reads it as JSON. */
export class MappingError extends Error {}

/**
 * "Quotas for configuring and running a REST API in API Gateway"
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-execution-service-limits-table.html):
 * "Mapping template size: 300 KB".
 */
const maxTemplateBytes = 300 * 1024;

const inputMethods: ReadonlySet<string> = new Set(['body', 'json', 'path', 'params']);
const refusedDirectives: ReadonlySet<string> = new Set(['macro', 'macro_call', 'define', 'raw']);

type Node = { type?: string; id?: string; path?: { type: string; id: unknown; args?: unknown }[]; args?: unknown };

/** Every object of the parsed template, its nested nodes too. */
const nodesOf = (value: unknown): Node[] => {
  if (typeof value !== 'object' || value === null) return [];
  const children = Object.values(value).flatMap(nodesOf);
  return Array.isArray(value) ? children : [value as Node, ...children];
};

/** A reference's refusal: a `$input`/`$util` member API Gateway does not have, or a JSONPath the runner cannot follow. */
const referenceRefusal = (node: Node): string | undefined => {
  const [first] = node.path ?? [];
  if (!first || (node.id !== 'input' && node.id !== 'util')) return undefined;
  const name = String(first.id);
  const known = node.id === 'input' ? inputMethods : utilFunctions;
  if (!known.has(name)) return `$${node.id}.${name}`;
  const [argument] = Array.isArray(first.args) ? (first.args as { type: string; value: unknown }[]) : [];
  if (node.id === 'input' && (name === 'json' || name === 'path') && argument?.type === 'string') {
    if (jsonPathProblem(String(argument.value))) return `the JSONPath ${String(argument.value)}`;
  }
  return undefined;
};

/** Why the runner does not render `template` as API Gateway would (the construct, named), or undefined. */
export const templateRefusal = (template: string): string | undefined => {
  if (Buffer.byteLength(template) > maxTemplateBytes) return `a template over ${maxTemplateBytes} bytes`;
  let parsed: unknown;
  try {
    parsed = parse(template);
  } catch (error) {
    return `a template Velocity cannot parse (${(error as Error).message.split('\n')[0]})`;
  }
  for (const node of nodesOf(parsed)) {
    if (node.type && refusedDirectives.has(node.type))
      return `the directive #${node.type === 'macro_call' ? node.id : node.type}`;
    if (node.type === 'references') {
      const refused = referenceRefusal(node);
      if (refused) return refused;
    }
  }
  return undefined;
};

/** The `$input` members that read the payload (the body, or JSON of it). */
const payloadReaders: ReadonlySet<string> = new Set(['body', 'json', 'path']);

/**
 * The first `$input.body`, `$input.json(...)` or `$input.path(...)` of `template` (named), or undefined: a template
 * over a payload AWS does not document (a mock's integration response's) cannot be rendered as AWS would.
 */
export const payloadReference = (template: string): string | undefined => {
  for (const node of nodesOf(parse(template))) {
    const name = node.type === 'references' && node.id === 'input' ? node.path?.[0]?.id : undefined;
    if (typeof name === 'string' && payloadReaders.has(name)) return `$input.${name}`;
  }
  return undefined;
};

/** The same quota's "Number of iterations in a `#foreach ... #end` loop in mapping templates: 1000". */
const maxIterations = 1000;

/**
 * Velocity whose `#foreach` loops end after the quota's 1,000 iterations, as Velocity's own
 * `directive.foreach.maxloops` ends them (whether API Gateway fails the request instead is not documented).
 */
class MappingCompile extends Compile {
  override renderAstList(asts?: Parameters<Compile['renderAstList']>[0], contextId?: string) {
    const loop = contextId?.startsWith('foreach:') ? this.local[contextId] : undefined;
    const count = (loop as { foreach?: { count?: number } } | undefined)?.foreach?.count ?? 0;
    if (count > maxIterations) {
      this.runState.break = true;
      return '';
    }
    return super.renderAstList(asts, contextId);
  }
}

const compiled = new Map<string, Compile>();

const compile = (template: string) => {
  let found = compiled.get(template);
  if (!found) {
    found = new MappingCompile(parse(template), { customMethodHandlers: javaStringMethods });
    compiled.set(template, found);
  }
  return found;
};

/** The payload as JSON, `{}` when empty; a payload that is not JSON fails the render. */
const documentOf = (body: string) => {
  let parsed: { value: unknown } | undefined;
  return () => {
    if (parsed) return parsed.value;
    try {
      parsed = { value: body.trim() === '' ? {} : JSON.parse(body) };
    } catch (error) {
      throw new MappingError(`Could not parse request body into json: ${(error as Error).message}`);
    }
    return parsed.value;
  };
};

/** `$input.params(name)`: "path, query string, or header value, searched in that order". */
const paramOf = (params: MethodParameters, name: string) =>
  params.path[name] ?? params.querystring[name] ?? params.header[name] ?? '';

const inputVariable = ({ body, params }: MappingInput) => {
  const document = documentOf(body);
  return {
    body,
    json: (path: string) => JSON.stringify(selectJsonPath(document(), path) ?? null),
    // JSON's null is no value to Velocity: it renders as nothing, as an absent one does.
    path: (path: string) => selectJsonPath(document(), path) ?? undefined,
    params: (name?: string) =>
      name === undefined
        ? { path: { ...params.path }, querystring: { ...params.querystring }, header: { ...params.header } }
        : paramOf(params, String(name)),
  };
};

/** `template` rendered over `input`; throws a MappingError when the payload is not the JSON the template reads. */
export const renderTemplate = (template: string, input: MappingInput): string => {
  const variables = {
    input: inputVariable(input),
    util: utilVariable(),
    context: input.context,
    stageVariables: { ...input.stageVariables },
  };
  // A reference to no value renders as nothing (Velocity's `$!` for every reference), as API Gateway renders
  // `$input.path` of an absent or null member (LocalStack's test_input_path_template_formatting, validated on AWS).
  return compile(template).render(variables, undefined, true);
};
