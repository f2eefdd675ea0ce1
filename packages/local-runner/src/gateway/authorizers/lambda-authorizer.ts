// A REST API's Lambda authorizers (TOKEN and REQUEST): the checks before any invocation, the event, the result cache,
// the policy evaluated against each method ARN (policy.ts), and which failure becomes which gateway response.

import type { LambdaAuthorizerDefinition } from '../../app/rest-api.ts';
import type { FunctionPool, InvocationReport } from '../../lambda/pool.ts';
import { ResultCache } from '../result-cache.ts';
import { authorizerTimeoutMs, coldStartNotes, invokeWithin } from '../time-limit.ts';
import {
  type Authorizer,
  type AuthorizerDecision,
  type AuthorizerRequest,
  headerValues,
  identityOf,
  refuse,
} from './authorizer.ts';
import { type AuthorizerResult, decide, type PolicyDecision, parseResult } from './policy.ts';

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

/**
 * A policy's decision as the function gets it: the context's numbers and booleans as strings ("Output from an API
 * Gateway Lambda authorizer": numberKey "1", booleanKey "true"), its principal, and API Gateway's integrationLatency
 * (a number: the authorizer's time, from `started`).
 */
const granted = (decision: PolicyDecision | AuthorizerDecision, started: number): AuthorizerDecision => {
  if (!decision.allowed || !('principalId' in decision)) return decision;
  return {
    allowed: true,
    authorizer: {
      ...Object.fromEntries(Object.entries(decision.context).map(([key, value]) => [key, String(value)])),
      principalId: decision.principalId,
      integrationLatency: Date.now() - started,
    },
  };
};

/**
 * API Gateway's Lambda authorizers (TOKEN and REQUEST): which requests reach the function, the event it gets, the
 * result cache keyed by the token or the identity sources, the policy evaluated against each method ARN, and which
 * failure becomes which gateway response.
 */
export class LambdaAuthorizer implements Authorizer {
  readonly #definition: LambdaAuthorizerDefinition;
  readonly #pool: FunctionPool;
  readonly #cache = new ResultCache<AuthorizerResult>();

  constructor(definition: LambdaAuthorizerDefinition, pool: FunctionPool) {
    this.#definition = definition;
    this.#pool = pool;
  }

  /** The decision for `request`, and the cold start of the authorizer's function when it was invoked. */
  async authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision; notes: string[] }> {
    const started = Date.now();
    const { methodArn } = request;
    const asked = this.#event(request);
    if (!asked) return { decision: refuse('UNAUTHORIZED', 'Unauthorized'), notes: [] };
    const { event, cacheKey } = asked;
    const stageKey = cacheKey === undefined ? undefined : JSON.stringify([request.stage, cacheKey]);
    const cached = stageKey === undefined ? undefined : this.#cache.get(stageKey);
    if (cached) return { decision: granted(decide(cached, methodArn), started), notes: [] };
    const report = await this.#invoke(event);
    return {
      decision: granted(this.#decideOn(report, stageKey, methodArn), started),
      notes: coldStartNotes(this.#definition.functionId, report),
    };
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

  #decideOn(
    report: InvocationReport | undefined,
    cacheKey: string | undefined,
    methodArn: string,
  ): PolicyDecision | AuthorizerDecision {
    const invocation = report?.invocation;
    if (invocation?.outcome === 'error' && invocation.message === 'Unauthorized')
      return refuse('UNAUTHORIZED', 'Unauthorized');
    if (invocation?.outcome !== 'result') return refuse('AUTHORIZER_FAILURE', 'Internal server error');
    const result = parseResult(invocation.result);
    if (!result) return refuse('AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
    if (cacheKey !== undefined && this.#definition.ttlSeconds > 0)
      this.#cache.set(cacheKey, result, this.#definition.ttlSeconds);
    return decide(result, methodArn);
  }
}
