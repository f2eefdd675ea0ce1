// A REST API's non-proxy integrations, served by the runner of our fixture app (fixtures/integrations-app.ts):
// - "Tutorial: Create a REST API as an Amazon SQS proxy in API Gateway"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/integrating-api-with-aws-services-sqs.html): a
//   storage-first POST writes to the queue through a mapping template, and the queue's function consumes the message;
// - "Set up Lambda custom integrations in API Gateway" and "Handle Lambda errors in API Gateway"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/handle-errors-in-lambda-integration.html): a
//   function's error mapped to 400 by the integration response whose selection pattern matches its errorMessage;
// - "Method request behavior for payloads without mapping templates"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/integration-passthrough-behaviors.html): NEVER
//   answers 415 to a content type no template takes;
// - HTTP_PROXY and HTTP integrations ("Set up HTTP integrations in API Gateway",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/setup-http-integrations.html) to a loopback server;
// - AWS integrations with SNS Publish, EventBridge PutEvents, DynamoDB PutItem and Kinesis PutRecord at their local
//   endpoints.
import { createServer, type Server } from 'node:http';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../../src/app/local-aws.ts';
import { listenOnLoopback } from '../../../src/http-server.ts';
import { integrationNames, synthesizeIntegrationsApp } from '../../fixtures/integrations-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

let backend: Server;
let backendUrl = '';
/** A loopback port where nothing listens: one the system gave, closed again. */
let downPort = 0;

// The HTTP integrations' endpoint: what it was asked, as JSON; /items/missing is 404.
beforeAll(async () => {
  backend = createServer((request, response) => {
    // Never answered: the integration's time-out ends it (the server's close ends the connection).
    if (request.url === '/slow') return;
    if (request.url === '/items/text') {
      response.end('plain text');
      return;
    }
    const missing = request.url === '/items/missing';
    response.writeHead(missing ? 404 : 200, { 'Content-Type': 'application/json', 'X-Backend': 'loopback' });
    response.end(
      JSON.stringify({ method: request.method, url: request.url, stage: request.headers['x-stage'] ?? null }),
    );
  });
  backendUrl = await listenOnLoopback(backend);
  const closed = createServer();
  downPort = Number(new URL(await listenOnLoopback(closed)).port);
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      backend.close(() => resolve());
      backend.closeAllConnections();
    }),
);

const served = servedBeforeAll(() => synthesizeIntegrationsApp(backendUrl, downPort));

const send = async (method: string, path: string, body?: string, contentType = 'application/json') => {
  const response = await fetch(`${served.api.url}/v1${path}`, {
    method,
    ...(body !== undefined && { body, headers: { 'Content-Type': contentType } }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

test('storage first: a POST is sent to SQS by its mapping template, and the queue feeds the function', async () => {
  const order = JSON.stringify({ order: 'fern & moss', quantity: 2 });
  const consumed = served.functionLog.seen(/CONSUMED \{"order":"fern & moss","quantity":2\}/);
  const answer = await send('POST', '/orders', order);
  expect(answer.status).toBe(202);
  expect(JSON.parse(answer.text)).toEqual({ accepted: true, requestId: expect.any(String) });
  await consumed;
});

test('non-proxy Lambda: the request and response templates map the event and the result', async () => {
  const answer = await send('POST', '/greet', JSON.stringify({ name: 'Ada' }));
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-greeted')).toBe('yes');
  expect(JSON.parse(answer.text)).toEqual({ greeting: 'Hello, Ada', stage: 'v1' });
});

test("non-proxy Lambda: the function's error is mapped to 400 by the selection pattern over its message", async () => {
  const answer = await send('POST', '/greet', JSON.stringify({ nickname: 'Ada' }));
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.text)).toEqual({ error: '[BadRequest] no name in {"name":null,"stage":"v1"}' });
});

test('PassthroughBehavior NEVER: a content type no template takes is 415, the function not invoked', async () => {
  const answer = await send('POST', '/greet', 'name=Ada', 'application/x-www-form-urlencoded');
  expect(answer.status).toBe(415);
  expect(JSON.parse(answer.text)).toEqual({ message: 'Unsupported Media Type' });
});

test('HTTP_PROXY: the request passes through to the URL, and its answer back', async () => {
  const answer = await send('GET', '/proxied/a/b?x=1');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-backend')).toBe('loopback');
  expect(JSON.parse(answer.text)).toEqual({ method: 'GET', url: '/a/b?x=1', stage: null });
});

test('HTTP: the path and header parameters mapped, the answer through its response template and parameters', async () => {
  const answer = await send('GET', '/fetched/42');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-backend')).toBe('loopback');
  expect(JSON.parse(answer.text)).toEqual({ item: { method: 'GET', url: '/items/42', stage: 'v1' }, via: 'http' });
  expect((await send('GET', '/fetched/missing')).status).toBe(404);
});

test("a response template that reads an answer that is not JSON as JSON: API Gateway's configuration error, 500", async () => {
  const logged = served.log.seen(/GET \/v1\/fetched\/text .*Unable to transform response/);
  const answer = await send('GET', '/fetched/text');
  expect(answer.status).toBe(500);
  expect(JSON.parse(answer.text)).toEqual({ message: 'Internal server error' });
  await logged;
});

test("HTTP to an address that does not answer (its port from a stage variable): 500, the reason in the request's log line", async () => {
  const logged = served.log.seen(
    new RegExp(`GET /v1/down .*127\\.0\\.0\\.1:${downPort} did not answer \\(ECONNREFUSED\\)`),
  );
  const answer = await send('GET', '/down');
  expect(answer.status).toBe(500);
  expect(JSON.parse(answer.text)).toEqual({ message: 'Internal server error' });
  await logged;
});

test("past the integration's TimeoutInMillis: 504 INTEGRATION_TIMEOUT", async () => {
  const answer = await send('GET', '/slow');
  expect(answer.status).toBe(504);
  expect(answer.headers.get('x-amzn-errortype')).toBe('INTEGRATION_TIMEOUT');
  expect(JSON.parse(answer.text)).toEqual({ message: 'Endpoint request timed out' });
});

test('AWS integrations: SNS Publish, EventBridge PutEvents and DynamoDB PutItem reach the local services', async () => {
  const published = await send('POST', '/notify', JSON.stringify({ hello: 'topic' }));
  expect(published.status).toBe(200);
  expect(published.text).toContain('<MessageId>');
  const put = await send('POST', '/events', JSON.stringify({ hello: 'bus' }));
  expect(put.status).toBe(200);
  expect(JSON.parse(put.text)).toMatchObject({ FailedEntryCount: 0 });
  const stored = await send('POST', '/items', JSON.stringify({ id: 'i-1', name: 'fern' }));
  expect(stored.status).toBe(200);
  const database = new DynamoDBClient({
    endpoint: served.api.databaseEndpoint,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  const { Item } = await database.send(
    new GetItemCommand({ TableName: integrationNames.table, Key: { id: { S: 'i-1' } } }),
  );
  database.destroy();
  expect(Item).toEqual({ id: { S: 'i-1' }, name: { S: 'fern' } });
});

test('AWS integration: Kinesis PutRecord puts the body, base64-encoded by the template, as a record of the stream', async () => {
  const put = await send('POST', '/records', JSON.stringify({ reading: 42 }));
  expect(put.status).toBe(200);
  expect(JSON.parse(put.text)).toMatchObject({ ShardId: 'shardId-000000000000', SequenceNumber: expect.any(String) });
  const kinesis = new KinesisClient({
    endpoint: served.api.endpointVariables.AWS_ENDPOINT_URL_KINESIS,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  try {
    const { ShardIterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName: integrationNames.stream,
        ShardId: 'shardId-000000000000',
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator }));
    expect(Records.map(({ Data }) => Buffer.from(Data ?? []).toString())).toEqual([JSON.stringify({ reading: 42 })]);
  } finally {
    kinesis.destroy();
  }
});

test('AWS integration with S3: a PUT stores the body as the object the path names, a GET answers it', async () => {
  expect((await send('PUT', '/files/notes.txt', 'water the fern', 'text/plain')).status).toBe(200);
  const got = await send('GET', '/files/notes.txt');
  expect(got.status).toBe(200);
  expect(got.text).toBe('water the fern');
  expect((await send('GET', '/files/absent.txt')).status).toBe(404);
});
