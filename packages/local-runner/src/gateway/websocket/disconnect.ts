// A WebSocket API's disconnect phase: once a connection is closed (by the client, the gateway, or @connections'
// DELETE), the `$disconnect` route's function gets the close's status and reason, on a best-effort basis as on AWS
// (its result changes nothing: the connection is gone already).
import { invokeIntegration } from '../time-limit.ts';
import { disconnectEvent } from './events.ts';
import type { WebSocketExchange } from './exchange.ts';

/**
 * RFC 6455 7.4.1: 1005, no status code in the close frame; AWS's reason for it, as captured DISCONNECT events carry
 * it. Another close's reason is the close frame's.
 */
const reasonOf = (code: number, reason: string) =>
  code === 1005 && reason === '' ? 'Client-side close frame status not set' : reason;

/**
 * `$disconnect` invoked for the exchange's connection, closed with `code` and `reason`; resolves with its outcome, for
 * its log line, or undefined when the API has no such route.
 */
export const onDisconnect = async (
  { deployment, connection, notes }: WebSocketExchange,
  code: number,
  reason: string,
): Promise<string | undefined> => {
  const route = deployment.api.routes.find(({ routeKey }) => routeKey === '$disconnect');
  const pool = route && deployment.pools.get(route.functionId);
  if (!route || !pool) return undefined;
  notes.push(`close ${code}`);
  const report = await invokeIntegration(pool, route, disconnectEvent(connection, code, reasonOf(code, reason)), notes);
  const outcome = report?.invocation.outcome === 'result' ? 'ok' : 'failed';
  return `$disconnect -> ${route.functionId} ${outcome}`;
};
