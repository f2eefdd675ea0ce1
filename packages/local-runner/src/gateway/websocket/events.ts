// The events a WebSocket API's Lambda proxy integration gets ("Setting up data mapping for WebSocket APIs",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-mapping-template-reference.html,
// and events captured on AWS): a CONNECT event with the upgrade request's headers and query string, a MESSAGE event
// with the message's body, a DISCONNECT event with the close's status and reason; each with the connection's
// `requestContext` (its id, when it connected, the caller's address, the `$connect` authorizer's result).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { localAws } from '../../app/local-aws.ts';
import { headersAsSent, iamIdentity, requestTime } from '../proxy-event.ts';
import type { ConnectionContext } from './connections.ts';

/** An id in the shape of API Gateway's connection, message and request ids: 16 base64 characters (`L0SM9cOFvHcCIhw=`). */
export const gatewayId = () => randomBytes(11).toString('base64');

/**
 * The domain name of the API's default endpoint, which the events carry and apps build the @connections endpoint from
 * (`https://{domainName}/{stage}`): `{api-id}.execute-api.{region}.amazonaws.com` ("Invoking a WebSocket API"). A
 * Node.js function's requests to it reach the runner (lambda/runtime.mjs).
 */
export const domainNameOf = (apiId: string) => `${apiId}.execute-api.${localAws.region}.${localAws.urlSuffix}`;

/** The `requestContext` of an event of `connection`, at `now`. */
const requestContextOf = <Own extends Record<string, unknown>>(
  connection: ConnectionContext,
  routeKey: string,
  eventType: 'CONNECT' | 'MESSAGE' | 'DISCONNECT',
  now: Date,
  own: Own = {} as Own,
) => {
  const requestId = gatewayId();
  return {
    routeKey,
    ...own,
    eventType,
    extendedRequestId: requestId,
    requestTime: requestTime(now),
    messageDirection: 'IN',
    stage: connection.stage.name,
    connectedAt: connection.connectedAt,
    requestTimeEpoch: now.getTime(),
    identity: {
      ...(connection.iam && iamIdentity(connection.iam)),
      ...(connection.userAgent !== undefined && { userAgent: connection.userAgent }),
      sourceIp: connection.sourceIp,
    },
    requestId,
    domainName: connection.domainName,
    connectionId: connection.connectionId,
    apiId: connection.apiId,
    ...(connection.authorizer && { authorizer: connection.authorizer }),
  };
};

/** Each name's last value and every value, of a query string (undefined when it has none). */
const queryOf = (query: URLSearchParams) => {
  if (query.size === 0) return undefined;
  const all: Record<string, string[]> = {};
  for (const [name, value] of query) all[name] = [...(all[name] ?? []), value];
  const last = Object.fromEntries(Object.entries(all).map(([name, values]) => [name, values.at(-1) as string]));
  return { last, all };
};

/**
 * The `$connect` event: the upgrade request's headers as sent (each name's last value, and every value), its query
 * string's parameters when it has some, and the stage's variables when it has some.
 */
export const connectEvent = (connection: ConnectionContext, request: IncomingMessage, query: URLSearchParams) => {
  const headers = headersAsSent(request);
  const parameters = queryOf(query);
  const variables = connection.stage.variables;
  return {
    headers: headers.last,
    multiValueHeaders: headers.all,
    ...(parameters && {
      queryStringParameters: parameters.last,
      multiValueQueryStringParameters: parameters.all,
    }),
    ...(Object.keys(variables).length > 0 && { stageVariables: variables }),
    requestContext: requestContextOf(connection, '$connect', 'CONNECT', new Date()),
    isBase64Encoded: false,
  };
};

/**
 * The `$connect` REQUEST authorizer's event, less its `type` and `methodArn` (lambda-authorizer.ts adds them): the
 * `$connect` event with empty objects where it has no query string or stage variables, as the example input of
 * "Control access to WebSocket APIs with AWS Lambda REQUEST authorizers" shows.
 */
export const authorizerParts = (event: ReturnType<typeof connectEvent>) => ({
  ...event,
  queryStringParameters: event.queryStringParameters ?? {},
  multiValueQueryStringParameters: event.multiValueQueryStringParameters ?? {},
  stageVariables: event.stageVariables ?? {},
});

/** A message's event: its route, a message id of its own, its body (a binary message's base64-encoded). */
export const messageEvent = (connection: ConnectionContext, routeKey: string, data: Buffer, isBinary: boolean) => ({
  requestContext: requestContextOf(connection, routeKey, 'MESSAGE', new Date(), { messageId: gatewayId() }),
  body: isBinary ? data.toString('base64') : data.toString('utf8'),
  isBase64Encoded: isBinary,
});

/**
 * The `$disconnect` event: the close's status code and reason (`disconnectStatusCode`, `disconnectReason`), and the
 * headers captured DISCONNECT events carry (the API's host, and empty `x-api-key`, `X-Forwarded-For`, `x-restapi`).
 */
export const disconnectEvent = (connection: ConnectionContext, statusCode: number, reason: string) => {
  const headers = { Host: connection.domainName, 'x-api-key': '', 'X-Forwarded-For': '', 'x-restapi': '' };
  return {
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    requestContext: requestContextOf(connection, '$disconnect', 'DISCONNECT', new Date(), {
      disconnectStatusCode: statusCode,
      disconnectReason: reason,
    }),
    isBase64Encoded: false,
  };
};
