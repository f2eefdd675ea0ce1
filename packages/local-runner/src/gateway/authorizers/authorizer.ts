// The one interface every kind of authorizer implements (lambda-authorizer.ts: a REST API's TOKEN and REQUEST;
// user-pool-authorizer.ts: Cognito user pools; jwt-authorizer.ts and http-lambda-authorizer.ts: an HTTP API's), what
// it reads of a request and what it decides, with the request readings they share (a header's values, the identity
// sources). A pipeline asks its route's authorizer and turns a refusal into its kind of API's response.
import type { IdentitySource } from '../../app/cfn.ts';
import { isScalar } from '../../app/cfn.ts';

/**
 * Why an authorizer refuses a request, as a REST API's gateway response types name it; an HTTP API answers
 * UNAUTHORIZED 401, ACCESS_DENIED 403, and the others 500 (http/authorize.ts), and so does a WebSocket API's
 * `$connect` (websocket/connect.ts).
 */
export type RefusalType = 'UNAUTHORIZED' | 'ACCESS_DENIED' | 'AUTHORIZER_FAILURE' | 'AUTHORIZER_CONFIGURATION_ERROR';

/** What API Gateway decides for one request. */
export type AuthorizerDecision =
  /** `authorizer`: what the function gets as `requestContext.authorizer` (none: nothing). */
  | { allowed: true; authorizer: Record<string, unknown> | undefined }
  /** `context`: a Lambda authorizer's, which a REST API's gateway response may read ($context.authorizer.<key>). */
  | { allowed: false; responseType: RefusalType; message: string; context?: Record<string, string | number | boolean> };

/** What an authorizer reads of a request. */
export interface AuthorizerRequest {
  /** Header names as the client sent them, every value. */
  headers: Record<string, string[]>;
  query: URLSearchParams;
  /**
   * The ARN of the method (REST API) or route (HTTP API, a WebSocket API's `$connect`) being called
   * (`arn:aws:execute-api:region:account:api/stage/METHOD/path`, `.../stage/$connect`: request-path.ts, executeApiArn).
   */
  methodArn: string;
  /** The stage it is called on: each stage has a cache of its own (API Gateway flushes one stage's). */
  stage: string;
  /** The route's or method's AuthorizationScopes (none: no scopes). */
  scopes?: string[];
  /**
   * The request's parts as a Lambda authorizer of its kind of API receives them: a REST API's proxy event, an HTTP
   * API's payload 2.0 event, without the body; a WebSocket API's `$connect` event (websocket/events.ts).
   */
  parts: () => Record<string, unknown> & { requestContext: Record<string, unknown>; stageVariables?: unknown };
  /** An HTTP API's request as a payload 1.0 authorizer receives it: a REST API's REQUEST authorizer event. */
  partsV1?: () => Record<string, unknown>;
}

/** One kind of authorizer: what it decides for a request, and what the request's log line notes (a cold start). */
export interface Authorizer {
  authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision; notes?: string[] }>;
}

export const refuse = (responseType: RefusalType, message: string): AuthorizerDecision => ({
  allowed: false,
  responseType,
  message,
});

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
 * A REQUEST authorizer's identity: the value of each identity source (a repeated header's or query parameter's values
 * joined by commas), or undefined when one is missing, null or empty, which API Gateway answers 401 itself, invoking
 * no authorizer ("Why am I getting API Gateway 401 Unauthorized errors after creating a Lambda authorizer?", AWS
 * Knowledge Center: identity sources "missing, null, empty or not valid").
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
