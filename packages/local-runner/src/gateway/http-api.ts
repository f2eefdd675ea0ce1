// An HTTP API's request, as API Gateway handles it ("Working with HTTP APIs"): its CORS configuration, the route (its
// selection below), its JWT or Lambda authorizer, the Lambda proxy integration with payload format 2.0 (the event and
// both response forms) or 1.0, and the HTTP API's own answers: 404 {"message":"Not Found"}, 401 {"message":"Unauthorized"}, 403 {"message":"Forbidden"},
// 500 {"message":"Internal Server Error"}, 503 {"message":"Service Unavailable"} past the integration's time-out.

import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { JWTPayload } from 'jose';
import { isScalar } from '../app/cfn.ts';
import type { HttpCors, HttpLambdaAuthorizer, HttpRoute, JwtAuthorizer, LocalHttpApi } from '../app/http-api.ts';
import { localAws, resolveValue } from '../app/intrinsics.ts';
import type { LocalApp } from '../app/template.ts';
import type { FunctionPool } from '../lambda/pool.ts';
import { readBody } from '../request-body.ts';
import { decide, identityOf, parseResult, requestAuthorizerParts } from './authorizer.ts';
import { headersAsSent, requestTime } from './proxy-event.ts';
import { executeApiArn, pathSegments, refusedPath } from './request-path.ts';
import { type HttpResponse, proxyResultToResponse } from './responses.ts';
import { ResultCache } from './result-cache.ts';
import { match, moreSpecificFirst, routedMethods } from './routes.ts';
import { authorizerTimeoutMs, invokeIntegration, invokeWithin } from './time-limit.ts';
import { bearerToken, claimsAsText, type TokenVerifier } from './token-verification.ts';

const json = (status: number, message: string): HttpResponse => ({
  status,
  headers: [['Content-Type', 'application/json']],
  body: Buffer.from(JSON.stringify({ message })),
});
/** The HTTP API payload quota: 10 MB. */
const maxPayloadBytes = 10 * 1024 * 1024;

/**
 * Route selection ("Working with routes for HTTP APIs"): among the routes whose path matches the path's segments
 * (request-path.ts; `{name}` one segment, `{name+}` the rest) and whose method is the request's or ANY, the most
 * specific path, then the exact method; with none, the `$default` route; with none of those, 404. A method outside
 * `routedMethods` matches no route, `$default` included.
 */
const selectRoute = (routes: HttpRoute[], segments: string[], method: string) => {
  if (!routedMethods.has(method)) return undefined;
  const candidates = routes
    .filter((route) => route.resourcePath !== '$default' && (route.method === method || route.method === 'ANY'))
    .map((route) => ({ route, segments: route.resourcePath.split('/').filter(Boolean) }))
    .flatMap(({ route, segments: routeSegments }) => {
      const parameters = match(routeSegments, segments);
      return parameters ? [{ route, segments: routeSegments, parameters }] : [];
    })
    .sort((a, b) => moreSpecificFirst(a, b) || (a.route.method === 'ANY' ? 1 : 0) - (b.route.method === 'ANY' ? 1 : 0));
  const [best] = candidates;
  if (best) return { route: best.route, parameters: best.parameters };
  const fallback = routes.find((route) => route.resourcePath === '$default');
  return fallback && { route: fallback, parameters: {} };
};

/**
 * A JWT authorizer ("Control access to HTTP APIs with JWT authorizers in API Gateway", its "Authorizing API requests
 * with a JWT authorizer"): the token in the identity source, alone or after `Bearer `; the checks shared with user
 * pools (token-verification.ts: the key its `kid` names, `iss` the configured issuer, `exp`, `nbf`); `iat` not in the
 * future; `aud` one of the audiences, or, only when the token has no `aud`, `client_id` ("Troubleshooting issues with
 * HTTP API JWT authorizers": "When both aud and client_id are present, API Gateway evaluates aud"); else 401. A
 * route's scopes: one of them in the token's `scope` or `scp`, else 403. Locally the development issuer signs the
 * issuer's tokens (`cdk-local-runner token --issuer`, or `--pool` for a Cognito issuer).
 */
export class LocalJwtAuthorizer {
  readonly #headerName: string;
  readonly #issuer: string;
  readonly #audience: string[];
  readonly #verify: TokenVerifier;

  constructor(definition: JwtAuthorizer, app: LocalApp, verify: TokenVerifier) {
    this.#headerName = definition.headerName.toLowerCase();
    this.#issuer = resolveValue(definition.issuer, app);
    this.#audience = definition.audience.map((value) => resolveValue(value, app));
    this.#verify = verify;
  }

  /** Whether `claims` pass the checks only an HTTP API's JWT authorizer makes: `iat`, then `aud` or `client_id`. */
  #fits(claims: JWTPayload) {
    if (claims.iat !== undefined && claims.iat > Math.floor(Date.now() / 1000)) return false;
    const presented = claims.aud === undefined ? [claims.client_id] : [claims.aud].flat();
    return presented.some((value) => typeof value === 'string' && this.#audience.includes(value));
  }

  async authorize(request: IncomingMessage, scopes: string[]) {
    const sent = request.headers[this.#headerName];
    const token = typeof sent === 'string' ? bearerToken(sent) : '';
    const claims = await this.#verify(token, this.#issuer);
    if (!claims || !this.#fits(claims)) return { status: 401 as const };
    const granted = [claims.scope, claims.scp]
      .flatMap((value) => (typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []))
      .map(String);
    if (scopes.length > 0 && !scopes.some((scope) => granted.includes(scope))) return { status: 403 as const };
    return {
      jwt: {
        claims: claimsAsText(claims),
        scopes: granted.length > 0 ? granted : null,
      },
    };
  }
}

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const decodedPath = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

/** Whether a body of `contentType` reaches the function as text: else it is base64-encoded. */
const isText = (contentType: string | undefined) =>
  contentType === undefined || /^text\/|json|xml|javascript|x-www-form-urlencoded/i.test(contentType);

/** The payload format 2.0 event ("Working with AWS Lambda proxy integrations for HTTP APIs"). */
const eventV2 = (
  api: LocalHttpApi,
  request: IncomingMessage,
  url: URL,
  route: HttpRoute,
  parameters: Record<string, string>,
  body: Buffer,
) => {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = (request.rawHeaders[index] ?? '').toLowerCase();
    const value = request.rawHeaders[index + 1] ?? '';
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean));
    // Hop-by-hop fields end at API Gateway (RFC 9110 section 7.6.1): the captured event has none.
    else if (!hopByHop.has(name)) headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const started = new Date();
  // What API Gateway adds, as in an event captured on AWS (hotsock/voker, vokerhttp/testdata/apigwv2-request.json):
  // the client's address appended to X-Forwarded-For, the port and protocol, and an X-Ray trace header.
  const forwarded = headers['x-forwarded-for'];
  const client = request.socket.remoteAddress ?? '127.0.0.1';
  headers['x-forwarded-for'] = forwarded ? `${forwarded}, ${client}` : client;
  headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= `Root=1-${Math.floor(started.getTime() / 1000)
    .toString(16)
    .padStart(8, '0')}-${randomBytes(12).toString('hex')}`;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  // The path percent-decoded, as captured on AWS (`/capture/space value` for `/capture/space%20value`).
  const path = decodedPath(url.pathname);
  const text = isText(request.headers['content-type']);
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: path,
    rawQueryString: url.search.slice(1),
    ...(cookies.length > 0 && { cookies }),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    requestContext: {
      accountId: localAws.accountId,
      apiId: api.apiId,
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: (request.headers.host ?? 'localhost').split('.')[0],
      http: {
        method: request.method ?? 'GET',
        path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      // API Gateway's id of the request (captured events: 16 characters of base64).
      requestId: randomBytes(11).toString('base64').slice(0, 16),
      routeKey: route.routeKey,
      stage: api.stageName,
      time: requestTime(started),
      timeEpoch: started.getTime(),
    },
    ...(body.length > 0 && { body: body.toString(text ? 'utf8' : 'base64') }),
    ...(Object.keys(parameters).length > 0 && { pathParameters: parameters }),
    isBase64Encoded: body.length > 0 && !text,
    ...(Object.keys(api.stageVariables).length > 0 && { stageVariables: api.stageVariables }),
  };
};

/**
 * The payload format 1.0 event of an HTTP API ("Working with AWS Lambda proxy integrations for HTTP APIs", its 1.0
 * example): a REST API's shape, `version` "1.0", built from the same request as the 2.0 one (`made`): its path, query,
 * request id and time.
 */
const eventV1 = (
  made: ReturnType<typeof eventV2>,
  request: IncomingMessage,
  route: HttpRoute,
  parameters: Record<string, string>,
  authorizer: Record<string, unknown> | undefined,
) => {
  const { last, all } = headersAsSent(request);
  const query = new URLSearchParams(made.rawQueryString);
  const names = [...new Set(query.keys())];
  const { requestContext: context } = made;
  return {
    version: '1.0',
    resource: route.resourcePath,
    path: made.rawPath,
    httpMethod: request.method ?? 'GET',
    headers: last,
    multiValueHeaders: all,
    queryStringParameters:
      names.length > 0 ? Object.fromEntries(names.map((name) => [name, query.getAll(name).at(-1)])) : null,
    multiValueQueryStringParameters:
      names.length > 0 ? Object.fromEntries(names.map((name) => [name, query.getAll(name)])) : null,
    requestContext: {
      accountId: context.accountId,
      apiId: context.apiId,
      ...(authorizer && { authorizer }),
      domainName: context.domainName,
      domainPrefix: context.domainPrefix,
      extendedRequestId: context.requestId,
      httpMethod: context.http.method,
      identity: {
        accessKey: null,
        accountId: null,
        caller: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: context.http.sourceIp,
        user: null,
        userAgent: context.http.userAgent,
        userArn: null,
      },
      path: context.http.path,
      protocol: context.http.protocol,
      requestId: context.requestId,
      requestTime: context.time,
      requestTimeEpoch: context.timeEpoch,
      resourceId: route.routeKey,
      resourcePath: route.resourcePath,
      stage: context.stage,
    },
    pathParameters: Object.keys(parameters).length > 0 ? parameters : null,
    stageVariables: made.stageVariables ?? null,
    body: made.body ?? null,
    isBase64Encoded: made.isBase64Encoded,
  };
};

/**
 * A function's result as HTTP (payload 2.0): an object with `statusCode` as it says (headers, `cookies` as
 * Set-Cookie, its body, base64-decoded when `isBase64Encoded`); any other JSON the function answers is the body, 200,
 * application/json; undefined when malformed.
 */
const resultToResponse = (result: unknown): HttpResponse | undefined => {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return {
      status: 200,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(result) ?? 'null'),
    };
  }
  const { statusCode, headers = {}, cookies = [], body, isBase64Encoded = false } = result as Record<string, unknown>;
  const status = Number(statusCode);
  if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every(isScalar)) return undefined;
  if (!Array.isArray(cookies) || (body !== undefined && body !== null && typeof body !== 'string')) return undefined;
  const named = Object.entries(headers as Record<string, unknown>).map(([name, value]): [string, string] => [
    name,
    String(value),
  ]);
  return {
    status,
    headers: [
      ...(named.some(([name]) => name.toLowerCase() === 'content-type')
        ? []
        : ([['Content-Type', 'application/json']] as [string, string][])),
      ...named,
      ...cookies.map((cookie): [string, string] => ['Set-Cookie', String(cookie)]),
    ],
    body: Buffer.from(typeof body === 'string' ? body : '', isBase64Encoded === true ? 'base64' : 'utf8'),
  };
};

/** A request's event as a Lambda authorizer gets its parts: no body, the version its own. */
const authorizerParts = <Event extends { body?: unknown; isBase64Encoded: unknown; version: unknown }>({
  body: _body,
  isBase64Encoded: _encoded,
  version: _version,
  ...parts
}: Event) => parts;

/**
 * A Lambda authorizer of an HTTP API ("Working with AWS Lambda authorizers for HTTP APIs"): each identity source
 * required (missing or empty: 401, the function not invoked); with payload format 2.0, the event the request's 2.0
 * parts with `type`, `routeArn` and `identitySource` (a list), the answer a simple response (`isAuthorized`,
 * `context`) or an IAM policy; with 1.0, the event the request's 1.0 parts with `type`, `methodArn`, and
 * `identitySource` and `authorizationToken` (the values joined by commas), the answer an IAM policy. A policy is
 * evaluated against the route's ARN, a refusal 403; an error, a time-out (10 s) or a malformed answer 500; the
 * result cached by the identity sources' values for its TTL. The function gets the context under `authorizer.lambda`.
 */
export class LocalHttpLambdaAuthorizer {
  readonly #definition: HttpLambdaAuthorizer;
  readonly #pool: FunctionPool;
  readonly #cache = new ResultCache<unknown>();

  constructor(definition: HttpLambdaAuthorizer, pool: FunctionPool) {
    this.#definition = definition;
    this.#pool = pool;
  }

  /**
   * `parts`: the payload 2.0 event's, without the body; `v1`: the payload 1.0 event, without the body (the 1.0
   * authorizer's event is a REST API's REQUEST authorizer event: "Same as", the page's 1.0 example).
   */
  async authorize(
    request: IncomingMessage,
    url: URL,
    parts: Record<string, unknown>,
    v1: () => Record<string, unknown>,
    routeArn: string,
  ) {
    const { identitySources, simpleResponses, ttlSeconds, qualifier, payloadVersion } = this.#definition;
    const context = parts.requestContext as Record<string, unknown>;
    // Each identity source read as a REST API's REQUEST authorizer reads it (a repeated header's values joined by
    // commas, as the 2.0 event joins them); one missing or empty: 401.
    const identity = identityOf(identitySources, {
      headers: headersAsSent(request).all,
      query: url.searchParams,
      parts: () => ({ requestContext: context, stageVariables: parts.stageVariables }),
    });
    if (!identity) return { status: 401 as const };
    // Each stage has a cache of its own (API Gateway flushes one stage's).
    const key = identity.length > 0 && ttlSeconds > 0 ? JSON.stringify([context.stage, identity]) : undefined;
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
              ...v1(),
            };
      const report = await invokeWithin(this.#pool, event, qualifier, authorizerTimeoutMs);
      if (report?.invocation.outcome !== 'result') return { status: 500 as const };
      answer = report.invocation.result;
      if (key !== undefined) this.#cache.set(key, answer, ttlSeconds);
    }
    if (simpleResponses) {
      const { isAuthorized, context: granted = {} } = (answer ?? {}) as { isAuthorized?: unknown; context?: unknown };
      if (typeof isAuthorized !== 'boolean' || typeof granted !== 'object' || granted === null)
        return { status: 500 as const };
      return isAuthorized ? { lambda: granted } : { status: 403 as const };
    }
    const result = parseResult(answer);
    if (!result) return { status: 500 as const };
    const decision = decide(result, routeArn);
    return decision.allowed && 'context' in decision ? { lambda: decision.context } : { status: 403 as const };
  }
}

export interface HttpApiDeployment {
  api: LocalHttpApi;
  pools: Map<string, FunctionPool>;
  authorizers: Map<string, LocalJwtAuthorizer | LocalHttpLambdaAuthorizer>;
}

/**
 * The API's CORS configuration applied as API Gateway applies it ("Configure CORS for HTTP APIs"): a preflight
 * (OPTIONS with Origin and Access-Control-Request-Method) answered by API Gateway itself, 204, whatever the routes;
 * other responses get Access-Control-Allow-Origin (`*` for the origins `*`, else the request's origin), -Expose-Headers
 * and -Allow-Credentials in place of any the integration sent. An origin is allowed when an entry of AllowOrigins is
 * `*`, is the origin, or is `https://*` or `http://*` and the origin begins with that scheme ("allow any origin that
 * begins with https://", the page's example values); an origin not allowed gets no CORS headers.
 */
const corsHeaders = (cors: HttpCors, request: IncomingMessage, preflight: boolean): [string, string][] => {
  const origin = request.headers.origin;
  const allows = (entry: string) =>
    origin !== undefined && (entry === origin || (entry.endsWith('://*') && origin.startsWith(entry.slice(0, -1))));
  const allowed = cors.allowOrigins.includes('*') ? '*' : cors.allowOrigins.some(allows) ? origin : undefined;
  if (allowed === undefined) return [];
  const header = (name: string, values: string[]): [string, string][] =>
    values.length > 0 ? [[name, values.join(',')]] : [];
  const credentials = header('Access-Control-Allow-Credentials', cors.allowCredentials ? ['true'] : []);
  if (!preflight)
    return [
      ['Access-Control-Allow-Origin', allowed],
      ...credentials,
      ...header('Access-Control-Expose-Headers', cors.exposeHeaders),
    ];
  return [
    ['Access-Control-Allow-Origin', allowed],
    ...credentials,
    ...header('Access-Control-Allow-Methods', cors.allowMethods),
    ...header('Access-Control-Allow-Headers', cors.allowHeaders),
    ...header('Access-Control-Max-Age', cors.maxAge === undefined ? [] : [String(cors.maxAge)]),
  ];
};

/** A response with the API's CORS headers in place of the integration's (none without a configuration). */
const withCors = (cors: HttpCors | undefined, request: IncomingMessage, response: HttpResponse): HttpResponse => {
  if (!cors) return response;
  const kept = response.headers.filter(([name]) => !name.toLowerCase().startsWith('access-control-'));
  return { ...response, headers: [...kept, ...corsHeaders(cors, request, false)] };
};

/** One request to the HTTP API: its response, and what its log line notes. */
export const handleHttpApi = async (request: IncomingMessage, url: URL, deployment: HttpApiDeployment) => {
  const { cors } = deployment.api;
  if (
    cors &&
    request.method === 'OPTIONS' &&
    request.headers.origin &&
    request.headers['access-control-request-method']
  ) {
    request.resume();
    return {
      httpResponse: { status: 204, headers: corsHeaders(cors, request, true), body: Buffer.alloc(0) },
      notes: ['CORS preflight, answered by API Gateway'],
    };
  }
  const answered = await answer(request, url, deployment);
  return { ...answered, httpResponse: withCors(cors, request, answered.httpResponse) };
};

/** The request through its route, authorizer and function. */
const answer = async (request: IncomingMessage, url: URL, deployment: HttpApiDeployment) => {
  const notes: string[] = [];
  const { api } = deployment;
  const requestId = randomUUID();
  const withId = (response: HttpResponse): HttpResponse => ({
    ...response,
    headers: [...response.headers, ['apigw-requestid', requestId]],
  });
  const body = await readBody(request, maxPayloadBytes);
  if (body === undefined) return { httpResponse: withId(json(413, 'Request Entity Too Large')), notes };
  // A named stage is the path's first segment; `$default` has none.
  const prefix = api.stageName === '$default' ? '' : `/${api.stageName}`;
  if (prefix && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
    return { httpResponse: withId(json(404, 'Not Found')), notes };
  // A path the runner refuses (request-path.ts): 400, as an HTTP API answers a request it cannot read.
  const refused = refusedPath(request.url ?? '/');
  if (refused) {
    notes.push(`refused: ${refused}, whose route on AWS no public source settles`);
    return { httpResponse: withId(json(400, 'Bad Request')), notes };
  }
  const segments = pathSegments(url.pathname.slice(prefix.length));
  const found = selectRoute(api.routes, segments, request.method ?? 'GET');
  if (!found) return { httpResponse: withId(json(404, 'Not Found')), notes };
  const { route, parameters } = found;
  const made = eventV2(api, request, url, route, parameters, body);
  // The function's event: the request's, with what an authorizer allowed.
  let event: typeof made & { requestContext: { authorizer?: Record<string, unknown> } } = made;
  if (route.authorizerId !== undefined) {
    const chosen = deployment.authorizers.get(route.authorizerId);
    const parts = authorizerParts(made);
    // Payload 1.0: a REST API's REQUEST authorizer event ("Same as", the page says).
    const v1 = () => requestAuthorizerParts(eventV1(made, request, route, parameters, undefined));
    const routeArn = executeApiArn(api.apiId, api.stageName, request.method ?? 'GET', segments);
    const decision: { status: number } | Record<string, unknown> =
      chosen instanceof LocalJwtAuthorizer
        ? await chosen.authorize(request, route.authorizationScopes)
        : chosen
          ? await chosen.authorize(request, url, parts, v1, routeArn)
          : { status: 500 };
    if (typeof decision.status === 'number') {
      const message =
        decision.status === 401 ? 'Unauthorized' : decision.status === 403 ? 'Forbidden' : 'Internal Server Error';
      return { httpResponse: withId(json(decision.status, message)), notes };
    }
    event = { ...made, requestContext: { ...made.requestContext, authorizer: decision } };
  }
  const pool = deployment.pools.get(route.functionId);
  if (!pool) return { httpResponse: withId(json(500, 'Internal Server Error')), notes };
  // Payload 1.0: an authorizer's result as its 1.0 example shows a JWT authorizer's (claims and scopes at its top).
  const granted = event.requestContext.authorizer;
  const delivered =
    route.payloadVersion === '1.0'
      ? eventV1(made, request, route, parameters, (granted?.jwt as Record<string, unknown> | undefined) ?? granted)
      : event;
  const report = await invokeIntegration(pool, route, delivered, notes);
  if (!report) return { httpResponse: withId(json(503, 'Service Unavailable')), notes };
  const { invocation } = report;
  const response =
    invocation.outcome !== 'result'
      ? undefined
      : route.payloadVersion === '1.0'
        ? // A REST API's response format; with no binary media types, a body marked base64 is decoded.
          proxyResultToResponse(invocation.result, true)
        : resultToResponse(invocation.result);
  if (!response) {
    notes.push(
      `${route.functionId} ${invocation.outcome === 'result' ? 'malformed result' : invocation.outcome === 'error' ? `error: ${invocation.errorType}: ${invocation.message}` : `failure: ${invocation.reason}`}`,
    );
    return { httpResponse: withId(json(500, 'Internal Server Error')), notes };
  }
  return { httpResponse: withId(response), notes };
};
