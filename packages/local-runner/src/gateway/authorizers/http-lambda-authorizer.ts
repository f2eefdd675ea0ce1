// A Lambda authorizer of an HTTP API ("Working with AWS Lambda authorizers for HTTP APIs"): each identity source
// required (missing or empty: 401, the function not invoked); with payload format 2.0, the event the request's 2.0
// parts with `type`, `routeArn` and `identitySource` (a list), the answer a simple response (`isAuthorized`,
// `context`) or an IAM policy (policy.ts); with 1.0, the event the request's 1.0 parts with `type`, `methodArn`, and
// `identitySource` and `authorizationToken` (the values joined by commas), the answer an IAM policy. A policy is
// evaluated against the route's ARN, a refusal 403; an error, a time-out (10 s) or a malformed answer 500; the result
// cached by the identity sources' values for its TTL. The function gets the context under `authorizer.lambda`.
import type { HttpLambdaAuthorizerDefinition } from '../../app/http-api.ts';
import type { FunctionPool } from '../../lambda/pool.ts';
import { ResultCache } from '../result-cache.ts';
import { authorizerTimeoutMs, invokeWithin } from '../time-limit.ts';
import { type Authorizer, type AuthorizerDecision, type AuthorizerRequest, identityOf, refuse } from './authorizer.ts';
import { decide, parseResult } from './policy.ts';

const failed = () => ({ decision: refuse('AUTHORIZER_FAILURE', 'Internal Server Error') });
const forbidden = () => ({ decision: refuse('ACCESS_DENIED', 'Forbidden') });

export class HttpLambdaAuthorizer implements Authorizer {
  readonly #definition: HttpLambdaAuthorizerDefinition;
  readonly #pool: FunctionPool;
  readonly #cache = new ResultCache<unknown>();

  constructor(definition: HttpLambdaAuthorizerDefinition, pool: FunctionPool) {
    this.#definition = definition;
    this.#pool = pool;
  }

  /**
   * `request.parts`: the payload 2.0 event's, without the body; `partsV1`: the payload 1.0 event, without the body
   * (the 1.0 authorizer's event is a REST API's REQUEST authorizer event: "Same as", the page's 1.0 example).
   */
  async authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision }> {
    const { identitySources, simpleResponses, ttlSeconds, qualifier, payloadVersion } = this.#definition;
    const { methodArn: routeArn } = request;
    const parts = request.parts();
    // Each identity source read as a REST API's REQUEST authorizer reads it (a repeated header's values joined by
    // commas, as the 2.0 event joins them); one missing or empty: 401.
    const identity = identityOf(identitySources, { ...request, parts: () => parts });
    if (!identity) return { decision: refuse('UNAUTHORIZED', 'Unauthorized') };
    // Each stage has a cache of its own (API Gateway flushes one stage's).
    const key = identity.length > 0 && ttlSeconds > 0 ? JSON.stringify([request.stage, identity]) : undefined;
    let answer = key === undefined ? undefined : this.#cache.get(key);
    if (answer === undefined) {
      const event =
        payloadVersion === '2.0'
          ? { version: '2.0', type: 'REQUEST', routeArn, identitySource: identity, ...parts }
          : {
              version: '1.0',
              type: 'REQUEST',
              methodArn: routeArn,
              identitySource: identity.join(','),
              authorizationToken: identity.join(','),
              ...request.partsV1?.(),
            };
      const report = await invokeWithin(this.#pool, event, qualifier, authorizerTimeoutMs);
      if (report?.invocation.outcome !== 'result') return failed();
      answer = report.invocation.result;
      if (key !== undefined) this.#cache.set(key, answer, ttlSeconds);
    }
    if (simpleResponses) {
      const { isAuthorized, context: granted = {} } = (answer ?? {}) as { isAuthorized?: unknown; context?: unknown };
      if (typeof isAuthorized !== 'boolean' || typeof granted !== 'object' || granted === null) return failed();
      return isAuthorized ? { decision: { allowed: true, authorizer: { lambda: granted } } } : forbidden();
    }
    const result = parseResult(answer);
    if (!result) return failed();
    const decision = decide(result, routeArn);
    return decision.allowed ? { decision: { allowed: true, authorizer: { lambda: decision.context } } } : forbidden();
  }
}
