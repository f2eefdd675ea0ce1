// A WebSocket API's route phase: the route a message takes, by the API's RouteSelectionExpression
// `$request.body.<path>` ("Working with routes for WebSocket APIs"): the text at that path of the message's JSON body
// names a custom route; a message that is not JSON, has no text there, or names no custom route takes `$default`, and
// without `$default` no route (the client is told Forbidden: message.ts).
import type { WebSocketApi } from '../../app/api.ts';
import type { WebSocketRoute } from '../../app/websocket-api.ts';
import type { Step } from '../exchange.ts';
import { gatewayMessage, type WebSocketExchange } from './exchange.ts';

/** The route keys a message never selects: those of the connection's own events. */
const eventRoutes = new Set(['$connect', '$disconnect']);

/**
 * The text at `path` in `body` read as JSON (each step an own property of an object), or undefined: not JSON, no such
 * property, or a value that is not a string. Whether AWS takes a number or a boolean there as a route key is not
 * documented: the runner takes strings alone.
 */
export const selectionKey = (path: readonly string[], body: string | undefined): string | undefined => {
  if (body === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  for (const step of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step))
      return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return typeof value === 'string' ? value : undefined;
};

/** The route of a message (`text`: its text, undefined for a binary message), or undefined when none takes it. */
export const routeOf = (
  api: Pick<WebSocketApi, 'routeSelectionPath' | 'routes'>,
  text: string | undefined,
): WebSocketRoute | undefined => {
  const key = selectionKey(api.routeSelectionPath, text);
  const named =
    key === undefined || eventRoutes.has(key) ? undefined : api.routes.find(({ routeKey }) => routeKey === key);
  return named ?? api.routes.find(({ routeKey }) => routeKey === '$default');
};

/** Route: the route of the exchange's message (`text`, as routeOf takes it), or API Gateway's Forbidden. */
export const route = (exchange: WebSocketExchange, text: string | undefined): Step<WebSocketRoute, string> => {
  const found = routeOf(exchange.deployment.api, text);
  return found ? { next: found } : gatewayMessage(exchange, 'Forbidden');
};
