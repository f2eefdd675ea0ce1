// API Gateway (REST API, Lambda proxy integrations) on loopback: the server, its limits and time-outs, and the order
// of a request's way through routing (routes.ts), the TOKEN authorizer (authorizer.ts), the proxy event v1
// (proxy-event.ts) and the answers (answers.ts). Each behaviour, with the AWS page it comes from, is in docs/local-runner.md
// ("Gateway semantics"); where this code differs from AWS, this code is wrong.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { localAws } from '../app/intrinsics.ts';
import type { LocalApp } from '../app/template.ts';
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';
import { type Answer, errorAnswer, gatewayAnswer, proxyResultToAnswer, rawAnswer } from './answers.ts';
import type { TokenAuthorizer } from './authorizer.ts';
import { headersAsSent, proxyEvent } from './proxy-event.ts';
import { type CompiledRoute, findRoute } from './routes.ts';
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

export const createGateway = ({ deployment, log, localRoutes }: GatewayOptions): Server => {
  const compiledRoutes = new WeakMap<LocalApp, CompiledRoute[]>();
  const routesOf = (app: LocalApp) => {
    let routes = compiledRoutes.get(app);
    if (!routes) {
      routes = app.routes.map((route) => ({ ...route, segments: route.resourcePath.split('/').filter(Boolean) }));
      compiledRoutes.set(app, routes);
    }
    return routes;
  };
  const handle = async (request: IncomingMessage): Promise<{ answer: Answer; notes: string[] }> => {
    const { app, pools, authorizers } = deployment();
    const routes = routesOf(app);
    const requestId = randomUUID();
    const started = new Date();
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    // What the request log line tells besides method, path, status and time: cold starts and failures.
    const notes: string[] = [];
    const noteColdStart = (functionId: string, report: InvocationReport | undefined) => {
      if (report?.initMs !== undefined) notes.push(`cold start ${functionId}, init ${Math.round(report.initMs)} ms`);
    };
    const gateway = (type: string, message: string) => ({
      answer: gatewayAnswer(app.gatewayResponses, type, message, requestId),
      notes,
    });

    if (requestLineAndHeaderValuesBytes(request) > maxRequestLineAndHeaderValuesBytes) {
      notes.push(`request line and header values over ${maxRequestLineAndHeaderValuesBytes} bytes`);
      return { answer: errorAnswer(431, requestId), notes };
    }
    const body = await readBody(request);
    if (body === undefined) return gateway('REQUEST_TOO_LARGE', 'Request Too Long');
    const found = findRoute(routes, url.pathname, method);
    if (!found) return gateway('MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
    const { route, parameters } = found;

    const headers = headersAsSent(request);
    const methodArn = `arn:aws:execute-api:${localAws.region}:${localAws.accountId}:${app.apiId}/${app.stageName}/${method}${url.pathname}`;

    let authorizer: Record<string, unknown> | undefined;
    if (route.authorizerId !== undefined) {
      const tokenAuthorizer = authorizers.get(route.authorizerId);
      if (!tokenAuthorizer) return gateway('AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
      const authorizerStarted = Date.now();
      const { decision, report } = await tokenAuthorizer.authorize(headers.all, methodArn, requestId);
      noteColdStart(tokenAuthorizer.functionId, report);
      if (!decision.allowed) return gateway(decision.responseType, decision.message);
      authorizer = {
        ...decision.context,
        principalId: decision.principalId,
        integrationLatency: Date.now() - authorizerStarted,
      };
    }
    const event = proxyEvent({ app, request, url, route, parameters, headers, body, requestId, started, authorizer });

    const pool = pools.get(route.functionId);
    if (!pool) return gateway('INTEGRATION_FAILURE', 'Internal server error');
    const report = await withinTime(pool.invoke(event, requestId), route.integrationTimeoutMs);
    if (!report) {
      notes.push(`${route.functionId} did not answer within ${route.integrationTimeoutMs} ms`);
      return gateway('INTEGRATION_TIMEOUT', 'Endpoint request timed out');
    }
    noteColdStart(route.functionId, report);
    const { invocation } = report;
    if (invocation.outcome !== 'result') {
      const reason =
        invocation.outcome === 'error' ? `${invocation.errorType}: ${invocation.message}` : invocation.reason;
      notes.push(`${route.functionId} ${invocation.outcome}: ${reason}`);
      return gateway('DEFAULT_5XX', 'Internal server error');
    }
    const answer = proxyResultToAnswer(invocation.result);
    if (!answer) {
      notes.push(`${route.functionId}: malformed proxy result`);
      return gateway('DEFAULT_5XX', 'Internal server error');
    }
    answer.headers.push(['x-amzn-RequestId', requestId]);
    return { answer, notes };
  };

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
      const logLine = (outcome: string) =>
        log(`${request.method} ${new URL(request.url ?? '/', 'http://localhost').pathname} ${outcome}`);
      handle(request)
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
