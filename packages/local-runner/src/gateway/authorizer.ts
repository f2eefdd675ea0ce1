// API Gateway's Lambda authorizer semantics (TOKEN and REQUEST): the checks before any invocation, the event, the
// result cache, the policy evaluated against each method ARN, and which failure becomes which gateway response.

import { type IdentitySource, isScalar } from '../app/cfn.ts';
import type { LocalLambdaAuthorizerDefinition } from '../app/rest-api.ts';
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';
import { compiledPattern } from './compiled-pattern.ts';
import { ResultCache } from './result-cache.ts';
import { authorizerTimeoutMs, invokeWithin } from './time-limit.ts';

/** What API Gateway decides for one request. */
export type AuthorizerDecision =
  | { allowed: true; principalId: string; context: Record<string, string | number | boolean> }
  /** A user pool authorizer's: the token's claims, which the function gets as `authorizer.claims`. */
  | { allowed: true; claims: Record<string, string> }
  | { allowed: false; responseType: string; message: string; context?: AuthorizerResult['context'] };

interface AuthorizerResult {
  principalId: string;
  statements: { effect: string; actions: string[]; resources: string[] }[];
  context: Record<string, string | number | boolean>;
}

/** The quota "Lambda authorizer response size": 8 KB, of the result's JSON in UTF-8 bytes. */
const maxResultBytes = 8 * 1024;

export const refuse = (responseType: string, message: string): AuthorizerDecision => ({
  allowed: false,
  responseType,
  message,
});
const configurationError = () => refuse('AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');

/** IAM's wildcards: `*` any run of characters, `?` any one. */
const matchesPattern = (pattern: string, value: string) =>
  compiledPattern(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  ).test(value);

const asList = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value
      : undefined;

/**
 * A proxy event (payload 1.0) as a REQUEST authorizer gets it: without its body, and with an empty object where the
 * proxy event has null (no query string, path parameters, stage variables), as AWS's sample input shows ("Input to
 * an API Gateway Lambda authorizer") and @aws-lambda-powertools/parser's APIGatewayRequestAuthorizerEventSchema
 * requires.
 */
export const requestAuthorizerParts = <
  Event extends {
    body?: unknown;
    isBase64Encoded?: unknown;
    queryStringParameters: unknown;
    multiValueQueryStringParameters: unknown;
    pathParameters: unknown;
    stageVariables: unknown;
  },
>({
  body: _body,
  isBase64Encoded: _encoded,
  ...rest
}: Event) => ({
  ...rest,
  queryStringParameters: rest.queryStringParameters ?? {},
  multiValueQueryStringParameters: rest.multiValueQueryStringParameters ?? {},
  pathParameters: rest.pathParameters ?? {},
  stageVariables: rest.stageVariables ?? {},
});

/** The authorizer's answer, or undefined when API Gateway would reject it as malformed. */
export const parseResult = (value: unknown): AuthorizerResult | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { principalId, policyDocument, context = {} } = value as Record<string, unknown>;
  if (typeof principalId !== 'string' || typeof policyDocument !== 'object' || policyDocument === null)
    return undefined;
  if (Buffer.byteLength(JSON.stringify(value)) > maxResultBytes) return undefined;
  const statement = (policyDocument as { Statement?: unknown }).Statement;
  const list: unknown[] = Array.isArray(statement) ? statement : [statement];
  const statements = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { Effect, Action, Resource } = item as Record<string, unknown>;
    const actions = asList(Action);
    const resources = asList(Resource);
    if ((Effect !== 'Allow' && Effect !== 'Deny') || !actions || !resources) return undefined;
    statements.push({ effect: Effect, actions, resources });
  }
  // Context values must be flat: nested objects or arrays make API Gateway answer 500.
  if (typeof context !== 'object' || context === null) return undefined;
  const flat = Object.values(context).every(isScalar);
  if (!flat) return undefined;
  return { principalId, statements, context: context as AuthorizerResult['context'] };
};

export const decide = (result: AuthorizerResult, methodArn: string): AuthorizerDecision => {
  const applies = (statement: AuthorizerResult['statements'][number]) =>
    statement.actions.some((action) => matchesPattern(action, 'execute-api:Invoke')) &&
    statement.resources.some((resource) => matchesPattern(resource, methodArn));
  const matching = result.statements.filter(applies);
  // A 403's gateway response may read the authorizer's context ($context.authorizer.<key>).
  const { context } = result;
  if (matching.some((statement) => statement.effect === 'Deny')) {
    return {
      ...refuse('ACCESS_DENIED', 'User is not authorized to access this resource with an explicit deny'),
      context,
    };
  }
  if (!matching.some((statement) => statement.effect === 'Allow')) {
    return { ...refuse('ACCESS_DENIED', 'User is not authorized to access this resource'), context };
  }
  return { allowed: true, principalId: result.principalId, context: result.context };
};

/** What an authorizer reads of a request. */
export interface AuthorizerRequest {
  /** Header names as the client sent them, every value. */
  headers: Record<string, string[]>;
  query: URLSearchParams;
  /** The ARN of the method being called (`arn:aws:execute-api:region:account:api/stage/METHOD/path`). */
  methodArn: string;
  /** The stage it is called on: each stage has a cache of its own (API Gateway flushes one stage's). */
  stage: string;
  /** The request's parts as a REQUEST authorizer receives them: the proxy event's, without the body. */
  parts: () => Record<string, unknown> & { requestContext: Record<string, unknown>; stageVariables: unknown };
}

/** A header's values, whatever the case of its name. */
export const headerValues = (headers: Record<string, string[]>, name: string) => {
  const wanted = name.toLowerCase();
  return Object.entries(headers).flatMap(([sent, values]) => (sent.toLowerCase() === wanted ? values : []));
};

/** A dotted path's value in `object` (`identity.sourceIp`), as text, if it is a scalar. */
const valueAt = (object: unknown, path: string) => {
  const value = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | null)?.[key], object);
  return isScalar(value) && value !== null ? String(value) : undefined;
};

/**
 * A REQUEST authorizer's identity: the value of each identity source, or undefined when one is missing, null or empty,
 * which API Gateway answers 401 itself, invoking no authorizer ("Why am I getting API Gateway 401 Unauthorized errors
 * after creating a Lambda authorizer?", AWS Knowledge Center: identity sources "missing, null, empty or not valid").
 */
export const identityOf = (
  sources: readonly IdentitySource[],
  request: Pick<AuthorizerRequest, 'headers' | 'query'> & {
    parts: () => { requestContext: unknown; stageVariables?: unknown };
  },
) => {
  const values: string[] = [];
  for (const { from, name } of sources) {
    const value =
      from === 'header'
        ? headerValues(request.headers, name).join(',')
        : from === 'querystring'
          ? request.query.getAll(name).join(',')
          : from === 'stageVariable'
            ? valueAt(request.parts().stageVariables, name)
            : valueAt(request.parts().requestContext, name);
    if (value === undefined || value === '') return undefined;
    values.push(value);
  }
  return values;
};

/**
 * API Gateway's Lambda authorizers (TOKEN and REQUEST): which requests reach the function, the event it gets, the
 * result cache keyed by the token or the identity sources, the policy evaluated against each method ARN, and which
 * failure becomes which gateway response.
 */
export class LocalLambdaAuthorizer {
  readonly #definition: LocalLambdaAuthorizerDefinition;
  readonly #pool: FunctionPool;
  readonly #cache = new ResultCache<AuthorizerResult>();

  constructor(definition: LocalLambdaAuthorizerDefinition, pool: FunctionPool) {
    this.#definition = definition;
    this.#pool = pool;
  }

  get functionId() {
    return this.#definition.functionId;
  }

  /** The decision for `request`; the report is there when the authorizer function was invoked. */
  async authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision; report?: InvocationReport }> {
    const { methodArn } = request;
    const asked = this.#event(request);
    if (!asked) return { decision: refuse('UNAUTHORIZED', 'Unauthorized') };
    const { event, cacheKey } = asked;
    const stageKey = cacheKey === undefined ? undefined : JSON.stringify([request.stage, cacheKey]);
    const cached = stageKey === undefined ? undefined : this.#cache.get(stageKey);
    if (cached) return { decision: decide(cached, methodArn) };
    const report = await this.#invoke(event);
    return { decision: this.#decideOn(report, stageKey, methodArn), ...(report && { report }) };
  }

  /**
   * The authorizer's event and the key its result is cached by (none: not cached), or undefined when API Gateway
   * answers 401 itself. TOKEN: the token, from its one header, matching the validation expression (two such headers
   * are refused: Authorization is a singleton field, RFC 9110, and which one would count is ambiguous). REQUEST: the
   * request's parts; its identity sources, each required, are the key ("Input to an API Gateway Lambda authorizer").
   */
  #event(request: AuthorizerRequest) {
    const definition = this.#definition;
    const { methodArn } = request;
    if (definition.type === 'TOKEN') {
      const values = headerValues(request.headers, definition.headerName);
      const [token = ''] = values;
      if (values.length !== 1 || token === '' || (definition.validation && !definition.validation.test(token)))
        return undefined;
      return { event: { type: 'TOKEN', authorizationToken: token, methodArn }, cacheKey: token };
    }
    const identity = identityOf(definition.identitySources, request);
    if (!identity) return undefined;
    // Without identity sources nothing can key a cache: every request invokes the authorizer.
    const cacheKey = identity.length > 0 ? JSON.stringify(identity) : undefined;
    return { event: { type: 'REQUEST', methodArn, ...request.parts() }, cacheKey };
  }

  #invoke(event: Record<string, unknown>) {
    const { qualifier } = this.#definition;
    return invokeWithin(this.#pool, event, qualifier, authorizerTimeoutMs);
  }

  #decideOn(report: InvocationReport | undefined, cacheKey: string | undefined, methodArn: string): AuthorizerDecision {
    const invocation = report?.invocation;
    if (invocation?.outcome === 'error' && invocation.message === 'Unauthorized')
      return refuse('UNAUTHORIZED', 'Unauthorized');
    if (invocation?.outcome !== 'result') return refuse('AUTHORIZER_FAILURE', 'Internal server error');
    const result = parseResult(invocation.result);
    if (!result) return configurationError();
    if (cacheKey !== undefined && this.#definition.ttlSeconds > 0)
      this.#cache.set(cacheKey, result, this.#definition.ttlSeconds);
    return decide(result, methodArn);
  }
}
