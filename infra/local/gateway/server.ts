// API Gateway (REST API, Lambda proxy integrations) on loopback: the server, and a request's way through it in five
// steps: limits, route (routes.ts), authorize (authorizer.ts), invoke (with the proxy event v1, proxy-event.ts) and
// answer (answers.ts). Each behaviour, with the AWS page it comes from, is in docs/local-runner.md ("Gateway
// semantics"); where this code differs from AWS, this code is wrong.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { localAws } from '../app/intrinsics.ts';
import type { LocalApp, LocalRoute } from '../app/template.ts';
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';
import { type Answer, errorAnswer, gatewayAnswer, proxyResultToAnswer, rawAnswer } from './answers.ts';
import type { TokenAuthorizer } from './authorizer.ts';
import { headersAsSent, proxyEvent } from './proxy-event.ts';
import { type CompiledResource, compileRoutes, findRoute } from './routes.ts';
import { withinTime } from './time-limit.ts';

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

/** The client went away before its request was read whole: nothing to answer, nothing the runner did wrong. */
class ClientAbortedError extends Error {
  override name = 'ClientAbortedError';
}

/** Reads the body; past the payload limit it keeps reading (so the client can finish sending) but keeps nothing. */
const readBody = (request: IncomingMessage) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxPayloadBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxPayloadBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', (error) => reject(new ClientAbortedError(error.message)));
  });

/**
 * The request's URL. Its target is a path (`//plants//1` too: a path with empty segments, not a host `plants`), or in
 * absolute form a whole URL whose path counts.
 */
export const requestUrl = (request: IncomingMessage) => {
  const target = request.url ?? '/';
  return target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target, 'http://localhost');
};

/** What the gateway serves: an app, its functions' pools and its authorizers (replaced whole by a reload). */
export interface Deployment {
  app: LocalApp;
  pools: Map<string, FunctionPool>;
  authorizers: Map<string, TokenAuthorizer>;
}

interface GatewayOptions {
  /** The deployment a request is served by, read as it arrives: one in flight keeps the one it began with. */
  deployment: () => Deployment;
  log: (line: string) => void;
  /** Answers requests of the runner's own, before the gateway (true when it did); see LocalApiOptions. */
  localRoutes?: LocalRoutes;
}

/** Routes the local runner serves besides the app's API (the entry file's API reference): true when answered. */
export type LocalRoutes = (request: IncomingMessage, response: ServerResponse) => boolean;

/** One request on its way through the gateway: what each step reads, and the notes for its log line. */
interface Way {
  request: IncomingMessage;
  deployment: Deployment;
  requestId: string;
  started: Date;
  url: URL;
  method: string;
  /** What the request's log line tells besides method, path, status and time: cold starts and failures. */
  notes: string[];
}

/** A step's result: the gateway has answered (the way ends there), or what the next step needs. */
type Step<T> = { answered: Answer } | { next: T };

/** The gateway's own answer of `type` (from the template's gateway responses, or AWS's defaults). */
const gatewayResponse = (way: Way, type: string, message: string) => ({
  answered: gatewayAnswer(way.deployment.app.gatewayResponses, type, message, way.requestId),
});

const noteColdStart = (way: Way, functionId: string, report: InvocationReport | undefined) => {
  if (report?.initMs !== undefined) way.notes.push(`cold start ${functionId}, init ${Math.round(report.initMs)} ms`);
};

/** 1. Limits: the request line and header values (431), then the body, read whole (413 past the payload limit). */
const withinLimits = async (way: Way): Promise<Step<Buffer>> => {
  if (requestLineAndHeaderValuesBytes(way.request) > maxRequestLineAndHeaderValuesBytes) {
    way.notes.push(`request line and header values over ${maxRequestLineAndHeaderValuesBytes} bytes`);
    return { answered: errorAnswer(431, way.requestId) };
  }
  const body = await readBody(way.request);
  return body === undefined ? gatewayResponse(way, 'REQUEST_TOO_LARGE', 'Request Too Long') : { next: body };
};

/** 2. Route: the resource and method the request names, or API Gateway's answer to an unknown route. */
const route = (way: Way, resources: CompiledResource[]): Step<NonNullable<ReturnType<typeof findRoute>>> => {
  const found = findRoute(resources, way.url.pathname, way.method);
  return found ? { next: found } : gatewayResponse(way, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
};

/** 3. Authorize: the route's TOKEN authorizer decides; what it allows reaches the function as `authorizer`. */
const authorize = async (
  way: Way,
  { authorizerId }: LocalRoute,
  headers: ReturnType<typeof headersAsSent>,
): Promise<Step<Record<string, unknown> | undefined>> => {
  if (authorizerId === undefined) return { next: undefined };
  const tokenAuthorizer = way.deployment.authorizers.get(authorizerId);
  if (!tokenAuthorizer) return gatewayResponse(way, 'AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
  const { app } = way.deployment;
  const methodArn = `arn:aws:execute-api:${localAws.region}:${localAws.accountId}:${app.apiId}/${app.stageName}/${way.method}${way.url.pathname}`;
  const authorizerStarted = Date.now();
  const { decision, report } = await tokenAuthorizer.authorize(headers.all, methodArn, way.requestId);
  noteColdStart(way, tokenAuthorizer.functionId, report);
  if (!decision.allowed) return gatewayResponse(way, decision.responseType, decision.message);
  return {
    next: {
      ...decision.context,
      principalId: decision.principalId,
      integrationLatency: Date.now() - authorizerStarted,
    },
  };
};

/** 4. Invoke: the route's function with the proxy event, within the integration's time-out (504 past it). */
const invoke = async (way: Way, { functionId, integrationTimeoutMs }: LocalRoute, event: unknown) => {
  const pool = way.deployment.pools.get(functionId);
  if (!pool) return gatewayResponse(way, 'INTEGRATION_FAILURE', 'Internal server error');
  const report = await withinTime(pool.invoke(event, way.requestId), integrationTimeoutMs);
  if (!report) {
    way.notes.push(`${functionId} did not answer within ${integrationTimeoutMs} ms`);
    return gatewayResponse(way, 'INTEGRATION_TIMEOUT', 'Endpoint request timed out');
  }
  noteColdStart(way, functionId, report);
  return { next: report };
};

/** 5. Answer: the function's proxy result as HTTP, or 502 when it failed or answered malformed. */
const answer = (way: Way, { functionId }: LocalRoute, { invocation }: InvocationReport): Answer => {
  if (invocation.outcome !== 'result') {
    const reason =
      invocation.outcome === 'error' ? `${invocation.errorType}: ${invocation.message}` : invocation.reason;
    way.notes.push(`${functionId} ${invocation.outcome}: ${reason}`);
    return gatewayResponse(way, 'DEFAULT_5XX', 'Internal server error').answered;
  }
  const result = proxyResultToAnswer(invocation.result);
  if (!result) {
    way.notes.push(`${functionId}: malformed proxy result`);
    return gatewayResponse(way, 'DEFAULT_5XX', 'Internal server error').answered;
  }
  result.headers.push(['x-amzn-RequestId', way.requestId]);
  return result;
};

/** Each app's routes, compiled once (a reload brings another app). */
const compiledRoutes = new WeakMap<LocalApp, CompiledResource[]>();
const routesOf = (app: LocalApp) => {
  let routes = compiledRoutes.get(app);
  if (!routes) {
    routes = compileRoutes(app.routes);
    compiledRoutes.set(app, routes);
  }
  return routes;
};

/** The request's way: limits, route, authorize, invoke, answer; a step that answers ends it. */
const handle = async (
  request: IncomingMessage,
  deployment: Deployment,
): Promise<{ answer: Answer; notes: string[] }> => {
  const way: Way = {
    request,
    deployment,
    requestId: randomUUID(),
    started: new Date(),
    url: requestUrl(request),
    method: request.method ?? 'GET',
    notes: [],
  };
  const answered = (step: { answered: Answer }) => ({ answer: step.answered, notes: way.notes });

  const body = await withinLimits(way);
  if ('answered' in body) return answered(body);
  const found = route(way, routesOf(deployment.app));
  if ('answered' in found) return answered(found);
  const headers = headersAsSent(request);
  const authorizer = await authorize(way, found.next.route, headers);
  if ('answered' in authorizer) return answered(authorizer);
  const event = proxyEvent({
    app: deployment.app,
    request,
    url: way.url,
    route: found.next.route,
    parameters: found.next.parameters,
    headers,
    body: body.next,
    requestId: way.requestId,
    started: way.started,
    authorizer: authorizer.next,
  });
  const report = await invoke(way, found.next.route, event);
  if ('answered' in report) return answered(report);
  return { answer: answer(way, found.next.route, report.next), notes: way.notes };
};

/** The server: each request's way (above), its log line, and the Error shape for what Node's parser refuses. */
export const createGateway = ({ deployment, log, localRoutes }: GatewayOptions): Server => {
  const server = createServer(
    { maxHeaderSize: nodeMaxHeaderSize, requireHostHeader: false },
    (request, response: ServerResponse) => {
      if (hostIsWrong(request)) {
        const { status, headers, body } = errorAnswer(400);
        const length: [string, string] = ['Content-Length', String(body.length)];
        response.writeHead(status, [...headers, length, ['Connection', 'close']].flat()).end(body);
        request.resume();
        log(`${request.method} - ${status} (no Host header, or more than one)`);
        return;
      }
      if (localRoutes?.(request, response)) return;
      const started = performance.now();
      // Logged without the query string, which may carry a token.
      const logLine = (outcome: string) => log(`${request.method} ${requestUrl(request).pathname} ${outcome}`);
      handle(request, deployment())
        .then(({ answer, notes }) => {
          // Once the server is closing, close each connection after its answer instead of keeping it alive.
          if (!server.listening) response.shouldKeepAlive = false;
          response.writeHead(answer.status, [...answer.headers, ['Content-Length', String(answer.body.length)]].flat());
          response.end(answer.body);
          const milliseconds = Math.round(performance.now() - started);
          logLine(`${answer.status} ${milliseconds} ms${notes.length ? ` (${notes.join('; ')})` : ''}`);
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
            const { status, headers, body } = errorAnswer(500);
            response.writeHead(status, headers.flat()).end(body);
          }
        });
    },
  );
  // Requests Node's parser refuses (malformed, or headers over nodeMaxHeaderSize) get the Error shape too, as Node's
  // documentation shows for 'clientError', instead of Node's bare 400 or 431.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    socket.end(rawAnswer(errorAnswer(status)));
    log(`- - ${status} (malformed request: ${error.code ?? error.message})`);
  });
  // CONNECT (a proxy tunnel) is no method of any REST API: API Gateway answers it as an unknown route.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const answer = gatewayAnswer(
      deployment().app.gatewayResponses,
      'MISSING_AUTHENTICATION_TOKEN',
      'Missing Authentication Token',
      randomUUID(),
    );
    socket.end(rawAnswer(answer));
    log(`CONNECT - ${answer.status} (no such route)`);
    request.resume();
  });
  return server;
};
