// A WebSocket API's pipeline ("Working with WebSocket APIs"), on the `ws` library's server in noServer mode on the
// listener's own HTTP server: an upgrade request to a stage's path goes through connect (connect.ts: the `$connect`
// authorizer and function, before the upgrade is accepted; a refusal is an HTTP status), then each message through
// route → validate → integrate → respond (message.ts), and the close through `$disconnect` (disconnect.ts), each an exchange of its
// own (exchange.ts) over the upgrade request and the connection. Requests that are no upgrade are the @connections
// API's (management.ts). The listener checks the Host before any of it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { webSocketQuotas } from '../../app/websocket-api.ts';
import { rawResponse } from '../../http-server.ts';
import type { WebSocketDeployment } from '../deployment.ts';
import type { BufferedResponse } from '../responses.ts';
import { stageFor } from '../stages.ts';
import { connect } from './connect.ts';
import type { ConnectionContext, Connections } from './connections.ts';
import { onDisconnect } from './disconnect.ts';
import { domainNameOf, gatewayId } from './events.ts';
import { refusal, type WebSocketExchange } from './exchange.ts';
import { onMessage } from './message.ts';

/** The refusal of an upgrade (exchange.ts, refusal), the connection closed. */
const refuseUpgrade = (socket: Duplex, { status, headers, body }: BufferedResponse) => {
  socket.on('error', () => undefined);
  socket.end(rawResponse(status, headers, body));
};

/** A connection's event's log line: `MESSAGE <id> <outcome> <time> ms (<notes>)`, the same for DISCONNECT. */
const eventLine = (event: string, { connection, notes }: WebSocketExchange, outcome: string, started: number) =>
  `${event} ${connection.connectionId} ${outcome} ${Math.round(performance.now() - started)} ms${notes.length ? ` (${notes.join('; ')})` : ''}`;

/**
 * Whether the request is an opening handshake `ws` accepts (RFC 6455 section 4.2.1: GET, `Upgrade: websocket`, a
 * 16-byte `Sec-WebSocket-Key`, version 13 or 8), checked before `$connect` runs: a handshake it would refuse must not
 * invoke the function first.
 */
const isHandshake = (request: IncomingMessage) =>
  request.method === 'GET' &&
  request.headers.upgrade?.toLowerCase() === 'websocket' &&
  /^[+/0-9A-Za-z]{22}==$/.test(request.headers['sec-websocket-key'] ?? '') &&
  ['8', '13'].includes(request.headers['sec-websocket-version'] ?? '');

/** An exchange of a connection (exchange.ts): its upgrade's (`connection`, its context), then each of its events'. */
const exchangeOf = <Of extends ConnectionContext>(
  request: IncomingMessage,
  url: URL,
  deployment: WebSocketDeployment,
  connection: Of,
): WebSocketExchange<Of> => ({
  request,
  url,
  deployment,
  connection,
  requestId: gatewayId(),
  started: new Date(),
  notes: [],
});

/**
 * An open connection's events, each through its phases with an exchange of its own (`exchange()`, on the deployment
 * of the moment), then its log line: each message (message.ts), then the close (disconnect.ts).
 */
const serveEvents = (webSocket: WebSocket, exchange: () => WebSocketExchange, log: (line: string) => void) => {
  webSocket.on('message', (data: Buffer, isBinary) => {
    const started = performance.now();
    const messaged = exchange();
    // A message read once the connection is closing (a client that ignores the close frame) is not routed.
    if (webSocket.readyState !== webSocket.OPEN) {
      log(`MESSAGE ${messaged.connection.connectionId} - (the connection is closing: not routed)`);
      return;
    }
    void onMessage(messaged, data, isBinary).then(
      (outcome) => log(eventLine('MESSAGE', messaged, outcome, started)),
      (error: unknown) => log(`MESSAGE ${messaged.connection.connectionId} - (local runner error: ${String(error)})`),
    );
  });
  webSocket.on('error', () => undefined);
  webSocket.once('close', (clientCode, clientReason) => {
    const started = performance.now();
    const closed = exchange();
    // A close the gateway made is $disconnect's (Connections.close), else the client's close frame's.
    const { code, reason } = closed.connection.closedBy ?? { code: clientCode, reason: clientReason.toString('utf8') };
    void onDisconnect(closed, code, reason).then(
      (outcome) => outcome && log(eventLine('DISCONNECT', closed, outcome, started)),
      (error: unknown) => log(`DISCONNECT ${closed.connection.connectionId} - (local runner error: ${String(error)})`),
    );
  });
};

/** What a WebSocket API's listener does with an upgrade request; `connections`: the API's open ones. */
export const webSocketGateway = (
  deployment: () => WebSocketDeployment,
  log: (line: string) => void,
  connections: Connections,
) => {
  // A message over the quota closes its connection with 1009 (RFC 6455 7.4.1, message too big), as `ws` does.
  const server = new WebSocketServer({ noServer: true, maxPayload: webSocketQuotas.maxMessageBytes });

  /** An upgrade request (its Host checked), to the path of one of the API's stages. */
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => {
    // A connection reset while $connect runs is no error of the runner's: nothing listens for it until `ws` does.
    socket.on('error', () => undefined);
    const started = performance.now();
    const served = deployment();
    const { api } = served;
    const stage = stageFor(api, url.pathname);
    const logLine = (outcome: string) =>
      log(`CONNECT ${url.pathname} ${outcome} ${Math.round(performance.now() - started)} ms`);
    if (url.pathname !== `/${stage.name}` && url.pathname !== `/${stage.name}/`) {
      refuseUpgrade(socket, refusal(403));
      return logLine('403 (no stage of that name)');
    }
    if (!isHandshake(request)) {
      refuseUpgrade(socket, refusal(400, 'Bad Request'));
      return logLine('400 (not a WebSocket opening handshake, RFC 6455 section 4.2.1)');
    }
    const context: ConnectionContext = {
      connectionId: gatewayId(),
      connectedAt: Date.now(),
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      userAgent: request.headers['user-agent'],
      stage,
      apiId: api.apiId,
      domainName: domainNameOf(api.apiId),
      authorizer: undefined,
    };
    const upgrading = exchangeOf(request, url, served, context);
    let gone = false;
    socket.once('close', () => {
      gone = true;
    });
    connect(upgrading)
      .then((connected) => {
        const { notes } = upgrading;
        const noted = notes.length ? ` (${notes.join('; ')})` : '';
        if ('responded' in connected) {
          refuseUpgrade(socket, connected.responded);
          return logLine(`${connected.responded.status} ${context.connectionId}${noted}`);
        }
        if (gone) return logLine(`- ${context.connectionId} (the client went away during $connect)`);
        server.handleUpgrade(request, socket, head, (webSocket) => {
          logLine(`101 ${context.connectionId}${noted}`);
          const connection = connections.add({ ...context, ...connected.next }, webSocket, socket);
          serveEvents(webSocket, () => exchangeOf(request, url, deployment(), connection), log);
        });
      })
      .catch((error: unknown) => {
        refuseUpgrade(socket, refusal(500));
        logLine(`500 (local runner error: ${error instanceof Error ? error.stack : String(error)})`);
      });
  };
  return upgrade;
};
