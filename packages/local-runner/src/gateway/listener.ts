// The gateway's listener: an HTTP server on loopback for one API, which refuses what no API would see (a wrong Host,
// bytes Node cannot parse), serves the runner's own pages, and passes each request to its kind of API's pipeline
// (rest/pipeline.ts, http/pipeline.ts, websocket/management.ts), served by the deployment of the moment, then writes the
// response and its log line; a WebSocket API's upgrade requests go to its pipeline (websocket/pipeline.ts). A new kind
// of API (a function URL) is a pipeline of its own, one more case in `serve`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  afterBody,
  type DrainingServer,
  drainingServer,
  hostIsServed,
  hostRefusal,
  rawResponse,
  requestHost,
  respondingToEveryRequest,
} from '../http-server.ts';
import { ClientAbortedError } from '../request-body.ts';
import type { Deployment, WebSocketDeployment } from './deployment.ts';
import { httpPipeline } from './http/pipeline.ts';
import { type BufferedResponse, errorResponse, type HttpResponse, renderGatewayResponse } from './responses.ts';
import { restPipeline } from './rest/pipeline.ts';
import { stageFor } from './stages.ts';
import { urlPipeline } from './url/pipeline.ts';
import { Connections } from './websocket/connections.ts';
import { managementPipeline } from './websocket/management.ts';
import { webSocketGateway } from './websocket/pipeline.ts';

/** Node's own limit on a request's header section, above the quota so the quota decides (with names, CRLFs). */
const nodeMaxHeaderSize = 64 * 1024;

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
 * A request through the pipeline of its API's kind, on the stage its path names (stages.ts); `connections`: a
 * WebSocket API's open ones.
 */
const serve = (request: IncomingMessage, deployment: Deployment, connections: Connections) => {
  const url = requestUrl(request);
  const stage = stageFor(deployment.api, url.pathname);
  switch (deployment.kind) {
    case 'rest':
      return restPipeline(request, url, deployment, stage);
    case 'http':
      return httpPipeline(request, url, deployment, stage);
    case 'url':
      return urlPipeline(request, url, deployment, stage);
    case 'websocket':
      return managementPipeline(request, url, deployment, connections);
  }
};

interface GatewayOptions {
  /** The deployment a request is served by, read as it arrives: one in flight keeps the one it began with. */
  deployment: () => Deployment;
  log: (line: string) => void;
  /** Answers requests of the runner's own, before the gateway (true when it did); see RunnerOptions. */
  runnerPages?: RunnerPages;
  /** Hosts served besides loopback's (`--allowed-host`; http-server.ts, hostIsServed). */
  allowedHosts?: readonly string[];
}

/** Pages the local runner serves besides the app's API (the entry file's API reference): true when responded. */
export type RunnerPages = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What a stopping gateway answers a request it reads (http-server.ts, drainingServer): 503, and why. */
const stoppingRefusal = {
  status: 503,
  why: 'the runner is stopping',
  message: 'The local runner is stopping: it answers no new request. Send it again once the runner is started.',
};

/** Why a request is refused before any page or pipeline: no Host or two (400), a Host not served (403), a stop (503). */
const refusalOf = (request: IncomingMessage, allowedHosts: readonly string[], stopping: boolean) => {
  const host = requestHost(request);
  if (hostIsWrong(request)) return { status: 400, why: 'no Host header, or more than one', message: undefined };
  if (!hostIsServed(host, allowedHosts))
    return { status: 403, why: `Host ${host} refused`, message: hostRefusal(host ?? '') };
  return stopping ? stoppingRefusal : undefined;
};

/**
 * A pipeline's response written: a buffered body framed by its length, a streamed one passed on as it comes (chunked;
 * cut, it cuts the client's connection); `logged` once it is written.
 */
const writeServed = (
  response: ServerResponse,
  { status, headers, body }: HttpResponse,
  notes: string[],
  logged: () => void,
) => {
  if (!Buffer.isBuffer(body)) {
    response.writeHead(status, headers.flat());
    body.once('error', (error) => {
      notes.push(`the stream was cut: ${error.message}`);
      response.destroy();
    });
    response.once('close', () => {
      logged();
      // A client gone before the end: the rest is read to no one, so that the function's stream ends.
      body.resume();
    });
    body.pipe(response);
    return;
  }
  // RFC 9110 section 8.6: no Content-Length on a 204 (a preflight's) or a 304, which have no content.
  const hasContent = status !== 204 && status !== 304;
  const length: [string, string][] = hasContent ? [['Content-Length', String(body.length)]] : [];
  response.writeHead(status, [...headers, ...length].flat());
  response.end(hasContent ? body : undefined);
  logged();
};

/** A pipeline that threw: the client gone is logged alone; anything else is the runner's 500, logged with its stack. */
const answerFailure = (
  response: ServerResponse,
  error: unknown,
  logLine: (outcome: string) => void,
  started: number,
) => {
  const milliseconds = Math.round(performance.now() - started);
  if (error instanceof ClientAbortedError) {
    logLine(`- ${milliseconds} ms (the client went away before sending its whole request)`);
    return;
  }
  logLine(`500 ${milliseconds} ms (local runner error: ${error instanceof Error ? error.stack : String(error)})`);
  if (!response.headersSent) {
    // Framed here whole, and the connection closed after it: a head that failed half-written leaves nothing of its
    // own (a Content-Length) to the answer, nor bytes to the next one.
    const { status, headers, body } = errorResponse(500);
    const framing = [...headers, ['Content-Length', String(body.length)], ['Connection', 'close']];
    response.writeHead(status, framing.flat()).end(body);
  }
};

const raw = ({ status, headers, body }: BufferedResponse) => rawResponse(status, headers, body);

/**
 * What Node's parser refuses (malformed, or headers over nodeMaxHeaderSize) gets the Error shape too, as Node's
 * documentation shows for 'clientError', instead of Node's bare 400 or 431; CONNECT (a proxy tunnel) is no method of
 * any REST API: API Gateway answers it as an unknown route.
 */
const everyRequestAnswered = ({ deployment, log, allowedHosts = [] }: GatewayOptions) => ({
  malformed: (status: number, error: { code?: string; message: string }) => {
    log(`- - ${status} (malformed request: ${error.code ?? error.message})`);
    return raw(errorResponse(status));
  },
  tunnel: (request: IncomingMessage) => {
    const host = requestHost(request);
    if (!hostIsServed(host, allowedHosts)) {
      log(`CONNECT - 403 (Host ${host} refused)`);
      return raw(errorResponse(403, undefined, hostRefusal(host ?? '')));
    }
    const { api } = deployment();
    const unknownRoute = renderGatewayResponse(
      api.kind === 'rest' ? api.gatewayResponses : new Map(),
      'MISSING_AUTHENTICATION_TOKEN',
      'Missing Authentication Token',
      randomUUID(),
    );
    log(`CONNECT - ${unknownRoute.status} (no such route)`);
    return raw(unknownRoute);
  },
});

/**
 * The server: each request through its pipeline (above), its log line, and the Error shape for what Node's parser
 * refuses; stopped as drainingServer stops.
 */
export const createGateway = (options: GatewayOptions): DrainingServer => {
  const { deployment, log, runnerPages, allowedHosts = [] } = options;
  /** The runner's own refusal (400, 403, 503), before any page or route: the Error JSON, then the connection closes. */
  const refuse = (
    request: IncomingMessage,
    response: ServerResponse,
    refusal: NonNullable<ReturnType<typeof refusalOf>>,
  ) => {
    const { headers, body } = errorResponse(refusal.status, undefined, refusal.message);
    const length: [string, string] = ['Content-Length', String(body.length)];
    afterBody(request, response, () =>
      response.writeHead(refusal.status, [...headers, length, ['Connection', 'close']].flat()).end(body),
    );
    log(`${request.method} - ${refusal.status} (${refusal.why})`);
  };
  const connections = new Connections();
  const server = createServer(
    { maxHeaderSize: nodeMaxHeaderSize, requireHostHeader: false },
    (request, response: ServerResponse) => {
      const refusal = refusalOf(request, allowedHosts, gateway.stopping);
      if (refusal) return refuse(request, response, refusal);
      if (runnerPages?.(request, response)) return;
      const started = performance.now();
      // Logged without the query string, which may carry a token.
      const logLine = (outcome: string) => log(`${request.method} ${requestUrl(request).pathname} ${outcome}`);
      // A write that throws (a header Node refuses) is answered as a pipeline that threw.
      serve(request, deployment(), connections)
        .then(({ response: served, notes }) =>
          writeServed(response, served, notes, () => {
            const milliseconds = Math.round(performance.now() - started);
            logLine(`${served.status} ${milliseconds} ms${notes.length ? ` (${notes.join('; ')})` : ''}`);
          }),
        )
        .catch((error: unknown) => answerFailure(response, error, logLine, started));
    },
  );
  respondingToEveryRequest(server, everyRequestAnswered(options));
  if (deployment().kind === 'websocket') {
    const upgrade = webSocketGateway(() => deployment() as WebSocketDeployment, log, connections);
    // The same Host checks as every request's, before the WebSocket API's pipeline.
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = refusalOf(request, allowedHosts, gateway.stopping);
      if (!refusal) return upgrade(request, socket, head, requestUrl(request));
      socket.on('error', () => undefined);
      socket.end(raw(errorResponse(refusal.status, undefined, refusal.message)));
      log(`UPGRADE - ${refusal.status} (${refusal.why})`);
    });
  }
  // Upgraded connections keep a server from closing: a stop ends them as it begins (1001, going away).
  const gateway = drainingServer(server, { onStop: () => connections.closeAll() });
  return gateway;
};
