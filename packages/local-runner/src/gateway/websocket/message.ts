// A WebSocket API's message phases: route (route.ts), integrate (the route's function invoked with the message's
// event), respond (the result's body back to the client when the route has a route response). A message no route takes,
// or whose function fails, gets API Gateway's own message back: `{"message": "Forbidden", ...}` or
// `{"message": "Internal server error", ...}`, with the connection's and the request's ids.
import { failureOf } from '../../lambda/pool.ts';
import type { WebSocketDeployment } from '../deployment.ts';
import { invokeIntegration } from '../time-limit.ts';
import type { Connection } from './connections.ts';
import { gatewayId, messageEvent } from './events.ts';
import { routeOf } from './route.ts';

/** API Gateway's own message to the client about its message. */
const gatewayMessage = (connection: Connection, message: string) =>
  JSON.stringify({ message, connectionId: connection.connectionId, requestId: gatewayId() });

/** One message of `connection` through its route; resolves with its log line. */
export const onMessage = async (
  deployment: WebSocketDeployment,
  connection: Connection,
  data: Buffer,
  isBinary: boolean,
): Promise<string> => {
  const started = performance.now();
  const route = routeOf(deployment.api, isBinary ? undefined : data.toString('utf8'));
  const line = (outcome: string) =>
    `MESSAGE ${connection.connectionId} ${outcome} ${Math.round(performance.now() - started)} ms`;
  if (!route) {
    connection.socket.send(gatewayMessage(connection, 'Forbidden'));
    return line('- (no route, no $default: Forbidden)');
  }
  const pool = deployment.pools.get(route.functionId);
  const notes: string[] = [];
  const event = messageEvent(connection, route.routeKey, data, isBinary);
  const report = pool && (await invokeIntegration(pool, route, event, notes));
  const invocation = report?.invocation;
  const done = (outcome: string) =>
    line(`${route.routeKey} -> ${route.functionId} ${outcome}`) + (notes.length ? ` (${notes.join('; ')})` : '');
  if (invocation?.outcome !== 'result') {
    if (invocation) notes.push(failureOf(invocation));
    connection.socket.send(gatewayMessage(connection, 'Internal server error'));
    return done('failed');
  }
  const { body } = (invocation.result ?? {}) as { body?: unknown };
  if (route.routeResponse && typeof body === 'string') connection.socket.send(body);
  return done('ok');
};
