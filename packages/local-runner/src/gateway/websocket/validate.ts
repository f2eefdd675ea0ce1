// A WebSocket API's validate phase ("Request validation for WebSocket APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/websocket-api-request-validation.html): a route with a
// ModelSelectionExpression checks the message's body against the model its key selects, `$default` when no other
// matches; no model, a body that is not JSON, or one the model refuses fails the message without calling the
// function, and the client is sent a "Bad request body" message (message.ts).
import type { WebSocketRoute } from '../../app/websocket-api.ts';
import type { Step } from '../exchange.ts';
import { matchesSchema } from '../request-validation.ts';
import { gatewayMessage, type WebSocketExchange } from './exchange.ts';
import { selectionKey } from './route.ts';

/** The body parsed as JSON, or undefined when it is not JSON (or the message is binary). */
const parsed = (text: string | undefined): { value: unknown } | undefined => {
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
};

/** Whether a message (`text`: its text, undefined for a binary one) passes the route's validation. */
const passesValidation = (validation: WebSocketRoute['validation'], text: string | undefined): boolean => {
  if (validation === undefined) return true;
  const key = selectionKey(validation.selectionPath, text);
  const schema = (key === undefined ? undefined : validation.models[key]) ?? validation.models.$default;
  const body = parsed(text);
  return schema !== undefined && body !== undefined && matchesSchema(schema, body.value);
};

/** Validate: the route, if its validation passes the message; else API Gateway's "Bad request body". */
export const validate = (
  exchange: WebSocketExchange,
  route: WebSocketRoute,
  text: string | undefined,
): Step<WebSocketRoute, string> =>
  passesValidation(route.validation, text) ? { next: route } : gatewayMessage(exchange, 'Bad request body');
