// A WebSocket API's message phases: route (route.ts), integrate (integrate.ts: the route's function invoked with the
// message's event), respond (the result's body back to the client when the route has a route response). A message no
// route takes, or whose function fails, gets API Gateway's own message back: `{"message": "Forbidden", ...}` or
// `{"message": "Internal server error", ...}`, with the connection's and the request's ids.
import { messageEvent } from './events.ts';
import type { WebSocketExchange } from './exchange.ts';
import { integrate } from './integrate.ts';
import { route } from './route.ts';

/** One message of the exchange's connection through its route; resolves with its outcome, for its log line. */
export const onMessage = async (exchange: WebSocketExchange, data: Buffer, isBinary: boolean): Promise<string> => {
  const { connection } = exchange;
  const found = route(exchange, isBinary ? undefined : data.toString('utf8'));
  if ('responded' in found) {
    connection.socket.send(found.responded);
    return '- (no route, no $default: Forbidden)';
  }
  const { routeKey, functionId, routeResponse } = found.next;
  const outcome = (done: string) => `${routeKey} -> ${functionId} ${done}`;
  const result = await integrate(exchange, found.next, messageEvent(connection, routeKey, data, isBinary));
  if ('responded' in result) {
    connection.socket.send(result.responded);
    return outcome('failed');
  }
  const { body } = (result.next ?? {}) as { body?: unknown };
  if (routeResponse && typeof body === 'string') connection.socket.send(body);
  return outcome('ok');
};
