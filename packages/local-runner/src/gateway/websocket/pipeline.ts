// A WebSocket API's pipeline ("Working with WebSocket APIs"), on the `ws` library's server in noServer mode on the
// listener's own HTTP server: an upgrade request to a stage's path goes through connect (connect.ts: the `$connect`
// authorizer and function, before the upgrade is accepted; a refusal is an HTTP status), then each message through
// route → integrate → respond (message.ts), and the close through `$disconnect` (disconnect.ts). Requests that are no
// upgrade are the @connections API's (management.ts). The listener checks the Host before any of it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { webSocketQuotas } from '../../app/websocket-api.ts';
import { rawResponse } from '../../http-server.ts';
import type { WebSocketDeployment } from '../deployment.ts';
import { stageFor } from '../stages.ts';
import { connect } from './connect.ts';
import type { ConnectionContext, Connections } from './connections.ts';
import { onDisconnect } from './disconnect.ts';
import { domainNameOf, gatewayId } from './events.ts';
import { onMessage } from './message.ts';

/** The refusal of an upgrade: the status, API Gateway's `{"message": ...}`, the connection closed. */
const refuseUpgrade = (socket: Duplex, status: number, message: string) => {
  socket.on('error', () => undefined);
  socket.end(rawResponse(status, [['Content-Type', 'application/json']], JSON.stringify({ message })));
};

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

const messages: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal server error' };

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
      refuseUpgrade(socket, 403, 'Forbidden');
      return logLine('403 (no stage of that name)');
    }
    if (!isHandshake(request)) {
      refuseUpgrade(socket, 400, 'Bad Request');
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
    const notes: string[] = [];
    let gone = false;
    socket.once('close', () => {
      gone = true;
    });
    connect(served, context, request, url, notes)
      .then((connected) => {
        const noted = notes.length ? ` (${notes.join('; ')})` : '';
        if (!connected.accepted) {
          refuseUpgrade(socket, connected.status, messages[connected.status] ?? 'Forbidden');
          return logLine(`${connected.status} ${context.connectionId}${noted}`);
        }
        if (gone) return logLine(`- ${context.connectionId} (the client went away during $connect)`);
        server.handleUpgrade(request, socket, head, (webSocket) => {
          logLine(`101 ${context.connectionId}${noted}`);
          const connection = connections.add({ ...context, authorizer: connected.authorizer }, webSocket);
          webSocket.on('message', (data: Buffer, isBinary) => {
            void onMessage(deployment(), connection, data, isBinary).then(log, (error: unknown) =>
              log(`MESSAGE ${context.connectionId} - (local runner error: ${String(error)})`),
            );
          });
          webSocket.on('error', () => undefined);
          webSocket.once('close', (code, reason) => {
            void onDisconnect(deployment(), connection, code, reason.toString('utf8')).then(
              (line) => line && log(line),
              (error: unknown) => log(`DISCONNECT ${context.connectionId} - (local runner error: ${String(error)})`),
            );
          });
        });
      })
      .catch((error: unknown) => {
        refuseUpgrade(socket, 500, 'Internal server error');
        logLine(`500 (local runner error: ${error instanceof Error ? error.stack : String(error)})`);
      });
  };
  return upgrade;
};
