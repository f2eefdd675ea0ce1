// API Gateway (REST API, Lambda proxy integrations) on loopback: the server, and each exchange (a request and its
// response) through it in five steps: limits, route (routes.ts), authorize (authorizer.ts), invoke (with the proxy
// event v1, proxy-event.ts) and respond (responses.ts). Each behaviour, with the AWS page it comes from, is in docs/local-runner.md ("Gateway
// semantics"); where this code differs from AWS, this code is wrong.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LocalApiKey } from '../app/api-keys.ts';
import type { Scalar } from '../app/cfn.ts';
import type { LocalRoute, MockRoute, ProxyRoute } from '../app/rest-api.ts';
import type { LocalApp } from '../app/template.ts';
import { afterBody, answeringEveryRequest, hostIsServed, hostRefusal, rawAnswer, requestHost } from '../http-server.ts';
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';
import { ClientAbortedError, readBody } from '../request-body.ts';
import { type LocalLambdaAuthorizer, requestAuthorizerParts } from './authorizer.ts';
import { integrationRequestIsBinary, isBase64, isBinaryMediaType, textResponseIsDecoded } from './content-handling.ts';
import { handleHttpApi, type LocalHttpLambdaAuthorizer, type LocalJwtAuthorizer } from './http-api.ts';
import { headersAsSent, proxyEvent } from './proxy-event.ts';
import { executeApiArn, pathSegments, refusedPath } from './request-path.ts';
import { validationFailure } from './request-validation.ts';
import { errorResponse, type HttpResponse, proxyResultToResponse, renderGatewayResponse } from './responses.ts';
import { type CompiledResource, compileRoutes, findRoute } from './routes.ts';
import { appForPath, isUnderStage } from './stages.ts';
import { coldStartNotes, invokeIntegration } from './time-limit.ts';
import { LocalUserPoolAuthorizer } from './user-pool-authorizer.ts';

/** API Gateway's payload limit. */
const maxPayloadBytes = 10 * 1024 * 1024;

/**
 * API Gateway's quota "Total combined size of request line and header values" for REST APIs: 10,240 bytes
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-execution-service-limits-table.html).
 */
const maxRequestLineAndHeaderValuesBytes = 10_240;

/** Node's own limit on a request's header section, above the quota so the quota decides (with names, CRLFs). */
const nodeMaxHeaderSize = 64 * 1024;

/** The bytes API Gateway's header quota counts: the request line and every header value. */
const requestLineAndHeaderValuesBytes = (request: IncomingMessage) => {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let index = 1; index < request.rawHeaders.length; index += 2) {
    bytes += Buffer.byteLength(request.rawHeaders[index] ?? '');
  }
  return bytes;
};

/**
 * RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header and to any request with
 * more than one. Node's own check (`requireHostHeader`) answers a bare 400 without a body, so the runner checks.
 */
const hostIsWrong = (request: IncomingMessage) => {
  let hosts = 0;
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    if (request.rawHeaders[index]?.toLowerCase() === 'host') hosts += 1;
  }
  return hosts > 1 || (hosts === 0 && request.httpVersion === '1.1');
};

/**
 * The request's URL. Its target is a path (`//items//1` too: a path with empty segments, not a host `items`), or in
 * absolute form a whole URL whose path counts.
 */
export const requestUrl = (request: IncomingMessage) => {
  const target = request.url ?? '/';
  return target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target, 'http://localhost');
};

/**
 * The request's URL without the stage: the deployed invoke URL has it (`https://<api>.execute-api.<region>.amazonaws.com/v1`),
 * so a client pointed at the runner by host alone calls `/v1/items`; the event is the same either way (`path`
 * without the stage, `requestContext.path` with it, as in captured events). Not when the API has a top-level
 * resource named like the stage: that path is the resource's.
 */
const withoutStage = (url: URL, app: LocalApp) => {
  if (!isUnderStage(app, url.pathname, app.stageName)) return url;
  const stripped = new URL(url);
  stripped.pathname = url.pathname.slice(app.stageName.length + 1) || '/';
  return stripped;
};

/** What the gateway serves: an app, its functions' pools and its authorizers (replaced whole by a reload). */
export interface Deployment {
  app: LocalApp;
  pools: Map<string, FunctionPool>;
  authorizers: Map<string, LocalLambdaAuthorizer | LocalUserPoolAuthorizer>;
  /** An HTTP API's authorizers (http-api.ts), when the app is an HTTP API. */
  httpAuthorizers: Map<string, LocalJwtAuthorizer | LocalHttpLambdaAuthorizer>;
}

/** The exchange, by the kind of API: an HTTP API's (http-api.ts), else a REST API's; served by the path's stage. */
const handleAny = (request: IncomingMessage, deployment: Deployment) => {
  const url = requestUrl(request);
  const app = appForPath(deployment.app, url.pathname);
  return app.httpApi
    ? handleHttpApi(request, url, {
        api: app.httpApi,
        pools: deployment.pools,
        authorizers: deployment.httpAuthorizers,
      })
    : handle(request, { ...deployment, app });
};

interface GatewayOptions {
  /** The deployment a request is served by, read as it arrives: one in flight keeps the one it began with. */
  deployment: () => Deployment;
  log: (line: string) => void;
  /** Answers requests of the runner's own, before the gateway (true when it did); see LocalApiOptions. */
  runnerPages?: RunnerPages;
  /** Hosts served besides loopback's (`--allowed-host`; http-server.ts, hostIsServed). */
  allowedHosts?: readonly string[];
}

/** Pages the local runner serves besides the app's API (the entry file's API reference): true when responded. */
export type RunnerPages = (request: IncomingMessage, response: ServerResponse) => boolean;

/** One exchange through the gateway (a request and its response): what each step reads, and its log line's notes. */
interface Exchange {
  request: IncomingMessage;
  deployment: Deployment;
  requestId: string;
  started: Date;
  url: URL;
  /** The segments of the path after the stage, as routes match them and the method ARN names them (request-path.ts). */
  segments: string[];
  method: string;
  /** What the request's log line tells besides method, path, status and time: cold starts and failures. */
  notes: string[];
}

/** A step's result: the gateway has responded (the exchange ends there), or what the next step needs. */
type Step<T> = { responded: HttpResponse } | { next: T };

/** The gateway's own response of `type` (from the template's gateway responses, or AWS's defaults). */
const gatewayResponse = (exchange: Exchange, type: string, message: string, authorizer?: Record<string, Scalar>) => ({
  responded: renderGatewayResponse(
    exchange.deployment.app.gatewayResponses,
    type,
    message,
    exchange.requestId,
    authorizer,
  ),
});

/** 1. Limits: the request line and header values (431), then the body, read whole (413 past the payload limit). */
const withinLimits = async (exchange: Exchange): Promise<Step<Buffer>> => {
  if (requestLineAndHeaderValuesBytes(exchange.request) > maxRequestLineAndHeaderValuesBytes) {
    exchange.notes.push(`request line and header values over ${maxRequestLineAndHeaderValuesBytes} bytes`);
    return { responded: errorResponse(431, exchange.requestId) };
  }
  const body = await readBody(exchange.request, maxPayloadBytes);
  return body === undefined ? gatewayResponse(exchange, 'REQUEST_TOO_LARGE', 'Request Too Long') : { next: body };
};

/**
 * 2. Route: the resource and method the request names, or API Gateway's response to an unknown route; a path the
 * runner refuses (request-path.ts) is 400, API Gateway's fallback for a 4xx of no type of its own.
 */
const route = (exchange: Exchange, resources: CompiledResource[]): Step<NonNullable<ReturnType<typeof findRoute>>> => {
  const refused = refusedPath(exchange.request.url ?? '/');
  if (refused) {
    exchange.notes.push(`refused: ${refused}, whose resource on AWS no public source settles`);
    return gatewayResponse(exchange, 'DEFAULT_4XX', `Bad Request: ${refused} (refused by the local runner)`);
  }
  const found = findRoute(resources, exchange.segments, exchange.method);
  return found
    ? { next: found }
    : gatewayResponse(exchange, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
};

/**
 * 3. Authorize: the route's Lambda authorizer decides; what it allows reaches the function as `authorizer`. A REQUEST
 * authorizer gets the request's parts: `partsOf()`, the proxy event without its body.
 */
const authorize = async (
  exchange: Exchange,
  { authorizerId, authorizationScopes }: LocalRoute,
  headers: ReturnType<typeof headersAsSent>,
  partsOf: () => ReturnType<typeof proxyEvent>,
): Promise<Step<Record<string, unknown> | undefined>> => {
  if (authorizerId === undefined) return { next: undefined };
  const authorizer = exchange.deployment.authorizers.get(authorizerId);
  if (!authorizer) return gatewayResponse(exchange, 'AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
  const { app } = exchange.deployment;
  const methodArn = executeApiArn(app.apiId, app.stageName, exchange.method, exchange.segments);
  const authorizerStarted = Date.now();
  const parts = () => requestAuthorizerParts(partsOf());
  const request = { headers: headers.all, query: exchange.url.searchParams, methodArn, stage: app.stageName, parts };
  if (authorizer instanceof LocalUserPoolAuthorizer) {
    const { decision } = await authorizer.authorize(request, authorizationScopes);
    if (!decision.allowed) return gatewayResponse(exchange, decision.responseType, decision.message);
    // The token's claims, as a user pool authorizer hands them on.
    return { next: 'claims' in decision ? { claims: decision.claims } : undefined };
  }
  const { decision, report } = await authorizer.authorize(request);
  exchange.notes.push(...coldStartNotes(authorizer.functionId, report));
  if (!decision.allowed) return gatewayResponse(exchange, decision.responseType, decision.message, decision.context);
  if (!('context' in decision)) return { next: undefined };
  return {
    next: {
      // The function receives the context's numbers and booleans as strings ("Output from an API Gateway Lambda
      // authorizer": numberKey "1", booleanKey "true"); API Gateway adds integrationLatency, a number.
      ...Object.fromEntries(Object.entries(decision.context).map(([key, value]) => [key, String(value)])),
      principalId: decision.principalId,
      integrationLatency: Date.now() - authorizerStarted,
    },
  };
};

/**
 * 3a. The API key, where the method requires one ("Choose an API key source in API Gateway"): the X-API-Key header
 * one of the API's keys for the stage (app/api-keys.ts), else 403 (INVALID_API_KEY). After the authorizer: the order
 * on AWS we have not seen (a key can come from the authorizer, which suggests it).
 */
const checkApiKey = (exchange: Exchange, { apiKeyRequired }: LocalRoute): Step<LocalApiKey | undefined> => {
  if (!apiKeyRequired) return { next: undefined };
  const { apiKeys, stageName } = exchange.deployment.app;
  const sent = exchange.request.headers['x-api-key'];
  const key = apiKeys.find(({ value, stages }) => value === sent && stages.includes(stageName));
  return key ? { next: key } : gatewayResponse(exchange, 'INVALID_API_KEY', 'Forbidden');
};

/**
 * 3b. Validate: the method's request validator, after its authorizer (the order of API Gateway's execution logs: the
 * authorizer, then "Request validation failed"), before the integration.
 */
const validate = (
  exchange: Exchange,
  { validation }: LocalRoute,
  headers: ReturnType<typeof headersAsSent>,
  pathParameters: Record<string, string>,
  body: Buffer,
) => {
  if (!validation) return undefined;
  const failure = validationFailure(validation, {
    headers: headers.all,
    query: exchange.url.searchParams,
    pathParameters,
    contentType: exchange.request.headers['content-type'],
    body,
  });
  if (!failure) return undefined;
  exchange.notes.push(`request validation failed: ${failure.message}`);
  return gatewayResponse(exchange, failure.responseType, failure.message);
};

/** 4. Invoke: the route's function with the proxy event, within the integration's time-out (504 past it). */
const invoke = async (exchange: Exchange, route: ProxyRoute, event: unknown) => {
  const pool = exchange.deployment.pools.get(route.functionId);
  if (!pool) return gatewayResponse(exchange, 'INTEGRATION_FAILURE', 'Internal server error');
  const report = await invokeIntegration(pool, route, event, exchange.notes);
  return report ? { next: report } : gatewayResponse(exchange, 'INTEGRATION_TIMEOUT', 'Endpoint request timed out');
};

/** 5. Respond: the function's proxy result as HTTP, or 502 when it failed or answered malformed. */
const respond = (exchange: Exchange, { functionId }: ProxyRoute, { invocation }: InvocationReport): HttpResponse => {
  if (invocation.outcome !== 'result') {
    const reason =
      invocation.outcome === 'error' ? `${invocation.errorType}: ${invocation.message}` : invocation.reason;
    exchange.notes.push(`${functionId} ${invocation.outcome}: ${reason}`);
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  }
  const { binaryMediaTypes } = exchange.deployment.app;
  const result = proxyResultToResponse(
    invocation.result,
    isBinaryMediaType(exchange.request.headers.accept, binaryMediaTypes),
  );
  if (!result) {
    exchange.notes.push(`${functionId}: malformed proxy result`);
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  }
  result.headers.push(['x-amzn-RequestId', exchange.requestId]);
  return result;
};

/**
 * 4-5 of a mock integration (a CORS preflight): API Gateway answers itself, as the template says
 * (docs/local-runner.md, "Mock integrations"), with JSON's media type as it gives any answer without one. Its request
 * template cannot be applied to a binary payload, nor its response decoded when it is not base64: 500, a
 * configuration error (gateway/content-handling.ts).
 */
const mockResponse = (exchange: Exchange, route: MockRoute): HttpResponse => {
  if (route.unanswered) {
    exchange.notes.push(
      'Execution failed due to configuration error: No match for output mapping and no default output mapping configured',
    );
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  const { binaryMediaTypes } = exchange.deployment.app;
  const requestIsBinary = isBinaryMediaType(exchange.request.headers['content-type'], binaryMediaTypes);
  if (integrationRequestIsBinary(requestIsBinary, route.requestContentHandling)) {
    exchange.notes.push('Execution failed due to configuration error: Unable to transform request');
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  const acceptIsBinary = isBinaryMediaType(exchange.request.headers.accept, binaryMediaTypes);
  const decoded = textResponseIsDecoded(acceptIsBinary, route.responseContentHandling);
  if (decoded && !isBase64(route.body)) {
    exchange.notes.push('Execution failed due to configuration error: Unable to transform response');
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  return {
    status: route.statusCode,
    headers: [
      ...(Object.keys(route.headers).some((name) => name.toLowerCase() === 'content-type')
        ? []
        : ([['Content-Type', 'application/json']] as [string, string][])),
      ...Object.entries(route.headers),
      ['x-amzn-RequestId', exchange.requestId],
    ],
    body: Buffer.from(route.body, decoded ? 'base64' : 'utf8'),
  };
};

/**
 * Each app's routes, compiled once (a reload brings other routes): keyed by the routes themselves, which every stage's
 * view of the app (handleAny) shares.
 */
const compiledRoutes = new WeakMap<LocalRoute[], CompiledResource[]>();
const routesOf = (app: LocalApp) => {
  let routes = compiledRoutes.get(app.routes);
  if (!routes) {
    routes = compileRoutes(app.routes);
    compiledRoutes.set(app.routes, routes);
  }
  return routes;
};

/** The exchange: limits, route, authorize, invoke, respond; a step that responds ends it. */
const handle = async (
  request: IncomingMessage,
  deployment: Deployment,
): Promise<{ httpResponse: HttpResponse; notes: string[] }> => {
  const url = withoutStage(requestUrl(request), deployment.app);
  const exchange: Exchange = {
    request,
    deployment,
    requestId: randomUUID(),
    started: new Date(),
    url,
    segments: pathSegments(url.pathname),
    method: request.method ?? 'GET',
    notes: [],
  };
  const responded = (step: { responded: HttpResponse }) => ({ httpResponse: step.responded, notes: exchange.notes });

  const body = await withinLimits(exchange);
  if ('responded' in body) return responded(body);
  const found = route(exchange, routesOf(deployment.app));
  if ('responded' in found) return responded(found);
  const headers = headersAsSent(request);
  const { route: chosen } = found.next;
  // The request as API Gateway passes it on, made once: the REQUEST authorizer and the function see the same one (its
  // trace header, its extendedRequestId), the function's with what the authorizer allowed.
  let made: ReturnType<typeof proxyEvent> | undefined;
  const requestEvent = () => {
    made ??= proxyEvent({
      app: deployment.app,
      request,
      url: exchange.url,
      route: chosen,
      parameters: found.next.parameters,
      headers,
      body: body.next,
      requestId: exchange.requestId,
      started: exchange.started,
      authorizer: undefined,
    });
    return made;
  };
  const authorizer = await authorize(exchange, chosen, headers, requestEvent);
  if ('responded' in authorizer) return responded(authorizer);
  const apiKey = checkApiKey(exchange, chosen);
  if ('responded' in apiKey) return responded(apiKey);
  const invalid = validate(exchange, chosen, headers, found.next.parameters, body.next);
  if (invalid) return responded(invalid);
  if (chosen.integration === 'mock') return { httpResponse: mockResponse(exchange, chosen), notes: exchange.notes };
  // The request's event, with what the authorizer allowed and the API key the method took ($context.identity.apiKey
  // and apiKeyId: "for API methods that require an API key").
  const passedOn = requestEvent();
  const { requestContext } = passedOn;
  const event = {
    ...passedOn,
    requestContext: {
      ...requestContext,
      ...(apiKey.next && {
        identity: { ...requestContext.identity, apiKey: apiKey.next.value, apiKeyId: apiKey.next.id },
      }),
      ...(authorizer.next && { authorizer: authorizer.next }),
    },
  };
  const report = await invoke(exchange, chosen, event);
  if ('responded' in report) return responded(report);
  return { httpResponse: respond(exchange, chosen, report.next), notes: exchange.notes };
};

/** The server: each exchange (above), its log line, and the Error shape for what Node's parser refuses. */
export const createGateway = ({ deployment, log, runnerPages, allowedHosts = [] }: GatewayOptions): Server => {
  /** The runner's own refusal (400, 403), before any page or route: the Error JSON, then the connection closes. */
  const refuse = (
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    why: string,
    message?: string,
  ) => {
    const { headers, body } = errorResponse(status, undefined, message);
    const length: [string, string] = ['Content-Length', String(body.length)];
    afterBody(request, response, () =>
      response.writeHead(status, [...headers, length, ['Connection', 'close']].flat()).end(body),
    );
    log(`${request.method} - ${status} (${why})`);
  };
  const server = createServer(
    { maxHeaderSize: nodeMaxHeaderSize, requireHostHeader: false },
    (request, response: ServerResponse) => {
      if (hostIsWrong(request)) return refuse(request, response, 400, 'no Host header, or more than one');
      const host = requestHost(request);
      if (!hostIsServed(host, allowedHosts)) {
        return refuse(request, response, 403, `Host ${host} refused`, hostRefusal(host ?? ''));
      }
      if (runnerPages?.(request, response)) return;
      const started = performance.now();
      // Logged without the query string, which may carry a token.
      const logLine = (outcome: string) => log(`${request.method} ${requestUrl(request).pathname} ${outcome}`);
      handleAny(request, deployment())
        .then(({ httpResponse: { status, headers, body }, notes }) => {
          // Once the server is closing, close each connection after its response instead of keeping it alive.
          if (!server.listening) response.shouldKeepAlive = false;
          // RFC 9110 section 8.6: no Content-Length on a 204 (a preflight's) or a 304, which have no content.
          const hasContent = status !== 204 && status !== 304;
          const length: [string, string][] = hasContent ? [['Content-Length', String(body.length)]] : [];
          response.writeHead(status, [...headers, ...length].flat());
          response.end(hasContent ? body : undefined);
          const milliseconds = Math.round(performance.now() - started);
          logLine(`${status} ${milliseconds} ms${notes.length ? ` (${notes.join('; ')})` : ''}`);
        })
        .catch((error: unknown) => {
          const milliseconds = Math.round(performance.now() - started);
          if (error instanceof ClientAbortedError) {
            logLine(`- ${milliseconds} ms (the client went away before sending its whole request)`);
            return;
          }
          logLine(
            `500 ${milliseconds} ms (local runner error: ${error instanceof Error ? error.stack : String(error)})`,
          );
          if (!response.headersSent) {
            const { status, headers, body } = errorResponse(500);
            response.writeHead(status, headers.flat()).end(body);
          }
        });
    },
  );
  // Requests Node's parser refuses (malformed, or headers over nodeMaxHeaderSize) get the Error shape too, as Node's
  // documentation shows for 'clientError', instead of Node's bare 400 or 431; CONNECT (a proxy tunnel) is no method of
  // any REST API: API Gateway answers it as an unknown route.
  const answered = ({ status, headers, body }: HttpResponse) => rawAnswer(status, headers, body);
  answeringEveryRequest(server, {
    malformed: (status, error) => {
      log(`- - ${status} (malformed request: ${error.code ?? error.message})`);
      return answered(errorResponse(status));
    },
    tunnel: (request) => {
      const host = requestHost(request);
      if (!hostIsServed(host, allowedHosts)) {
        log(`CONNECT - 403 (Host ${host} refused)`);
        return answered(errorResponse(403, undefined, hostRefusal(host ?? '')));
      }
      const unknownRoute = renderGatewayResponse(
        deployment().app.gatewayResponses,
        'MISSING_AUTHENTICATION_TOKEN',
        'Missing Authentication Token',
        randomUUID(),
      );
      log(`CONNECT - ${unknownRoute.status} (no such route)`);
      return answered(unknownRoute);
    },
  });
  return server;
};
