// A WebSocket API's integrate phase, for a message: its route's function invoked with the message's event, within
// the integration's time-out (time-limit.ts). A function that fails, times out or is missing answers the client with
// API Gateway's own message, `{"message": "Internal server error", ...}`.
import type { WebSocketRoute } from '../../app/websocket-api.ts';
import { failureOf } from '../../lambda/pool.ts';
import type { Step } from '../exchange.ts';
import { invokeIntegration } from '../time-limit.ts';
import { gatewayMessage, type WebSocketExchange } from './exchange.ts';

/** Integrate: the function's result, or API Gateway's message to the client (the log line's notes say why). */
export const integrate = async (
  exchange: WebSocketExchange,
  route: WebSocketRoute,
  event: unknown,
): Promise<Step<unknown, string>> => {
  const { deployment, notes } = exchange;
  const pool = deployment.pools.get(route.functionId);
  const report = pool && (await invokeIntegration(pool, route, event, notes));
  const invocation = report?.invocation;
  if (invocation?.outcome !== 'result') {
    if (invocation) notes.push(failureOf(invocation));
    return gatewayMessage(exchange, 'Internal server error');
  }
  return { next: invocation.result };
};
