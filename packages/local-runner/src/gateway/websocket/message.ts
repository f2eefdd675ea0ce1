// A WebSocket API's message phases: route (route.ts), validate (validate.ts: the route's request models), integrate
// (integrate.ts: the route's function invoked with the message's event), respond (the result's body back to the client
// when the route has a route response). A message no route takes, that fails validation, or whose function fails, gets
// API Gateway's own message back: `{"message": "Forbidden", ...}`, `{"message": "Bad request body", ...}` or
// `{"message": "Internal server error", ...}`, with the connection's and the request's ids.
import { messageEvent } from './events.ts';
import type { WebSocketExchange } from './exchange.ts';
import { integrate } from './integrate.ts';
import { route } from './route.ts';
import { validate } from './validate.ts';

/** One message of the exchange's connection through its route; resolves with its outcome, for its log line. */
export const onMessage = async (exchange: WebSocketExchange, data: Buffer, isBinary: boolean): Promise<string> => {
  const { connection } = exchange;
  const text = isBinary ? undefined : data.toString('utf8');
  const found = route(exchange, text);
  if ('responded' in found) {
    connection.socket.send(found.responded);
    return '- (no route, no $default: Forbidden)';
  }
  const { routeKey, functionId, routeResponse } = found.next;
  const outcome = (done: string) => `${routeKey} -> ${functionId} ${done}`;
  const valid = validate(exchange, found.next, text);
  if ('responded' in valid) {
    connection.socket.send(valid.responded);
    return outcome('not called (Bad request body)');
  }
  const result = await integrate(exchange, found.next, messageEvent(connection, routeKey, data, isBinary));
  if ('responded' in result) {
    connection.socket.send(result.responded);
    return outcome('failed');
  }
  const { body } = (result.next ?? {}) as { body?: unknown };
  if (routeResponse && typeof body === 'string') connection.socket.send(body);
  return outcome('ok');
};
