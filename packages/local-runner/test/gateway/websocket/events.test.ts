// The events a WebSocket API's Lambda proxy integration gets ("Setting up data mapping for WebSocket APIs",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-mapping-template-reference.html),
// built in-process and judged by @aws-lambda-powertools/parser's WebSocket schema (written from the $connect
// authorizer's event: the proxy events lack its `type` and `methodArn`; test-support/test-run's
// webSocketProxyEventSchema) and by the fields the reference names.
import type { IncomingMessage } from 'node:http';
import { APIGatewayProxyWebsocketEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway-websocket';
import { describe, expect, test } from '@jest/globals';
import { webSocketProxyEventSchema } from 'test-support/test-run';
import type { ConnectionContext } from '../../../src/gateway/websocket/connections.ts';
import {
  authorizerParts,
  connectEvent,
  disconnectEvent,
  domainNameOf,
  messageEvent,
} from '../../../src/gateway/websocket/events.ts';

const connection = (overrides: Partial<ConnectionContext> = {}): ConnectionContext => ({
  connectionId: 'L0SM9cOFvHcCIhw=',
  connectedAt: 1_700_000_000_000,
  sourceIp: '127.0.0.1',
  userAgent: 'node',
  stage: { name: 'dev', variables: {}, deploymentId: 'local' },
  apiId: 'Chat',
  domainName: domainNameOf('Chat'),
  authorizer: undefined,
  ...overrides,
});

const upgradeRequest = (rawHeaders: string[]) => ({ rawHeaders }) as unknown as IncomingMessage;

describe('$connect', () => {
  test('the headers as sent (a repeated one: its last, and all), the query string, the connection context', () => {
    const event = connectEvent(
      connection(),
      upgradeRequest(['Host', '127.0.0.1:3001', 'X-Tag', 'a', 'X-Tag', 'b', 'Sec-WebSocket-Version', '13']),
      new URLSearchParams('room=1&room=2&token=t'),
    );
    expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
    expect(event).toMatchObject({
      headers: { Host: '127.0.0.1:3001', 'X-Tag': 'b', 'Sec-WebSocket-Version': '13' },
      multiValueHeaders: { 'X-Tag': ['a', 'b'] },
      queryStringParameters: { room: '2', token: 't' },
      multiValueQueryStringParameters: { room: ['1', '2'], token: ['t'] },
      isBase64Encoded: false,
      requestContext: {
        routeKey: '$connect',
        eventType: 'CONNECT',
        messageDirection: 'IN',
        stage: 'dev',
        connectedAt: 1_700_000_000_000,
        identity: { sourceIp: '127.0.0.1', userAgent: 'node' },
        domainName: 'Chat.execute-api.us-east-1.amazonaws.com',
        connectionId: 'L0SM9cOFvHcCIhw=',
        apiId: 'Chat',
      },
    });
    expect(event.requestContext.requestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(event.requestContext.requestTime).toMatch(/^\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(event).not.toHaveProperty('body');
  });

  test('without a query string or stage variables: no such keys; its authorizer gets empty objects', () => {
    const event = connectEvent(connection(), upgradeRequest(['Host', 'localhost']), new URLSearchParams());
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('stageVariables');
    const parts = authorizerParts(event);
    const authorizerEvent = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:0:Chat/dev/$connect',
      ...parts,
    };
    expect(APIGatewayProxyWebsocketEventSchema.safeParse(authorizerEvent).error).toBeUndefined();
    expect(parts).toMatchObject({ queryStringParameters: {}, multiValueQueryStringParameters: {}, stageVariables: {} });
  });

  test("a stage's variables; what the authorizer allowed, in requestContext.authorizer", () => {
    const event = connectEvent(
      connection({
        stage: { name: 'dev', variables: { table: 't1' }, deploymentId: 'D' },
        authorizer: { principalId: 'ana', tenant: 'acme' },
      }),
      upgradeRequest([]),
      new URLSearchParams(),
    );
    expect(event).toMatchObject({
      stageVariables: { table: 't1' },
      requestContext: { authorizer: { principalId: 'ana', tenant: 'acme' } },
    });
  });
});

describe('a message', () => {
  test('its route and body, a message id of its own, no headers', () => {
    const event = messageEvent(connection(), 'sendmessage', Buffer.from('{"action":"sendmessage"}'), false);
    expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
    expect(event).toEqual({
      requestContext: expect.objectContaining({ routeKey: 'sendmessage', eventType: 'MESSAGE' }),
      body: '{"action":"sendmessage"}',
      isBase64Encoded: false,
    });
    expect(event.requestContext.messageId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(event.requestContext.messageId).not.toBe(
      messageEvent(connection(), 'sendmessage', Buffer.alloc(0), false).requestContext.messageId,
    );
  });

  test('a binary message: its bytes base64-encoded', () => {
    const bytes = Buffer.from([0, 255, 128]);
    expect(messageEvent(connection(), '$default', bytes, true)).toMatchObject({
      body: bytes.toString('base64'),
      isBase64Encoded: true,
    });
  });
});

test('$disconnect: the close status and reason, the headers captured DISCONNECT events carry', () => {
  const event = disconnectEvent(connection(), 1001, 'Going away');
  expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
  expect(event).toMatchObject({
    headers: { Host: 'Chat.execute-api.us-east-1.amazonaws.com', 'x-api-key': '', 'X-Forwarded-For': '' },
    requestContext: {
      routeKey: '$disconnect',
      eventType: 'DISCONNECT',
      disconnectStatusCode: 1001,
      disconnectReason: 'Going away',
    },
    isBase64Encoded: false,
  });
});
