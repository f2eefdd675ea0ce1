// One exchange of a WebSocket API (pipeline.ts): the exchange every kind has (../exchange.ts), its request the upgrade
// request, with the connection it is about: before the upgrade, what the connection's events will read (connect.ts);
// once open, the connection, whose message (message.ts) or close (disconnect.ts) it is. And how a phase ends it: an
// upgrade refused with an HTTP status, a message answered with API Gateway's own message.
import type { WebSocketDeployment } from '../deployment.ts';
import type { Exchange } from '../exchange.ts';
import type { BufferedResponse } from '../responses.ts';
import type { Connection, ConnectionContext } from './connections.ts';

export interface WebSocketExchange<Of extends ConnectionContext = Connection> extends Exchange<WebSocketDeployment> {
  connection: Of;
}

const messages: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal server error' };

/** The refusal of an upgrade: the status, API Gateway's `{"message": ...}` (by default of the status's). */
export const refusal = (status: number, message = messages[status] ?? 'Forbidden'): BufferedResponse => ({
  status,
  headers: [['Content-Type', 'application/json']],
  body: Buffer.from(JSON.stringify({ message })),
});

/** API Gateway's own message to the client about its message, with the connection's and the request's ids. */
export const gatewayMessage = ({ connection, requestId }: WebSocketExchange, message: string) => ({
  responded: JSON.stringify({ message, connectionId: connection.connectionId, requestId }),
});
