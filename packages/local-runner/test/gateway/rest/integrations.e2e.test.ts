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
//   endpoints;
// - MOCK integrations whose templates are VTL ("Mock integrations for REST APIs in API Gateway",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration.html, and "Enable mock
//   integration using the API Gateway console",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration-console.html): the rendered
//   request template's statusCode selecting the integration response; the overrides of "Override your API's request
//   and response parameters and status codes for REST APIs"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-override-request-response-parameters.html)
//   set by the request template and read by the response template, as LocalStack's tests recorded on AWS show
//   (localstack/localstack tests/aws/services/apigateway/test_apigateway_integrations.py,
//   test_integration_mock_with_request_overrides_in_response_template and
//   test_integration_mock_with_response_override_in_request_template).
import { createServer, type Server } from 'node:http';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../../src/app/local-aws.ts';
import { listenOnLoopback } from '../../../src/http-server.ts';
import { corsOrigins, integrationNames, synthesizeIntegrationsApp } from '../../fixtures/integrations-app.ts';
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
  // The integration's Credentials role, named in the request's log line; its policies are not evaluated locally.
  const noted = served.log.seen(/POST \/v1\/orders 202 .*as ApiRole\w* \(a role of the template\), whose policies/);
  const answer = await send('POST', '/orders', order);
  expect(answer.status).toBe(202);
  expect(JSON.parse(answer.text)).toEqual({ accepted: true, requestId: expect.any(String) });
  await consumed;
  await noted;
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

// Under WHEN_NO_MATCH a body no template takes passes through unmapped (the passthrough page); a Lambda custom
// integration's payload that is not JSON is API Gateway's 400 "Could not parse request body into json: ..." (a form body
// with no template: nateyolles/slack-pokerbot issue 1; serverless/serverless issue 2270).
test('non-proxy Lambda, WHEN_NO_MATCH without templates: the body is the event; not JSON, 400', async () => {
  const json = await send('POST', '/greet/raw', JSON.stringify({ name: 'Ada', stage: 'raw' }));
  expect([json.status, JSON.parse(json.text)]).toEqual([200, { greeting: 'Hello, Ada', stage: 'raw' }]);
  const text = await send('POST', '/greet/raw', 'name=Ada', 'text/plain');
  expect(text.status).toBe(400);
  expect(JSON.parse(text.text)).toEqual({ message: expect.stringMatching(/^Could not parse request body into json/) });
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

test('AWS integrations: SNS Publish, EventBridge PutEvents, DynamoDB PutItem and Query reach the local services', async () => {
  const published = await send('POST', '/notify', JSON.stringify({ hello: 'topic' }));
  expect(published.status).toBe(200);
  // SNS's answer as JSON: API Gateway asks for it (services/query-protocol.ts).
  expect(JSON.parse(published.text)).toMatchObject({
    PublishResponse: { PublishResult: { MessageId: expect.any(String) } },
  });
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
  const queried = await send('GET', '/items/i-1');
  expect([queried.status, JSON.parse(queried.text)]).toEqual([200, ['fern']]);
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

const mock = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  const response = await fetch(`${served.api.url}/v1${path}`, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

test("a mock's request template chooses its status with #if over $input.params, as the console's example does", async () => {
  const internal = await mock('GET', '/scoped?scope=internal');
  expect([internal.status, JSON.parse(internal.text)]).toEqual([
    200,
    { statusCode: 200, message: 'Go ahead without me' },
  ]);
  const other = await mock('GET', '/scoped');
  expect([other.status, JSON.parse(other.text)]).toEqual([
    500,
    { statusCode: 500, message: 'The invoked method is not supported on the API resource.' },
  ]);
});

test("a mock's request template sets overrides that its response template reads, and that make the response", async () => {
  const data = Buffer.from(JSON.stringify({ message: 'path one' })).toString('base64');
  const answer = await mock('GET', `/carried/${data}?status=yes`);
  expect(answer.status).toBe(444);
  expect(answer.headers.get('x-mocked')).toBe('by the request template');
  expect(answer.headers.get('x-stage')).toBe('v1');
  expect(JSON.parse(answer.text)).toEqual({ message: 'path one', status: '444' });
});

test("a mock's request template chosen by the content type; none for it with WHEN_NO_TEMPLATES is 415", async () => {
  const typed = (contentType: string) => mock('POST', '/typed', { 'Content-Type': contentType }, 'x');
  const json = await typed('application/json');
  expect([json.status, JSON.parse(json.text)]).toEqual([200, { template: 'json' }]);
  // `{ statusCode: 202 }`, not JSON: AWS reads it (CDK writes such a template for every CORS preflight).
  const text = await typed('text/plain');
  expect([text.status, JSON.parse(text.text)]).toEqual([202, { template: 'text' }]);
  expect((await typed('image/png')).status).toBe(415);
});

test('a statusCode that is not an integer ("200") is API Gateway\'s configuration error, 500', async () => {
  const logged = served.log.seen(/POST \/v1\/typed 500 .*Unable to parse statusCode/);
  const answer = await mock('POST', '/typed', { 'Content-Type': 'application/xml' }, '<x/>');
  expect([answer.status, JSON.parse(answer.text)]).toEqual([500, { message: 'Internal server error' }]);
  await logged;
});

test('a mock without a request template answers its default response, its template chosen by Accept', async () => {
  const html = await mock('GET', '/landing', { Accept: 'text/html' });
  expect([html.status, html.headers.get('content-type'), html.text]).toEqual([200, 'text/html', '<h1>Plants</h1>']);
  const json = await mock('GET', '/landing', { Accept: '*/*' });
  expect([json.headers.get('content-type'), JSON.parse(json.text)]).toEqual(['application/json', { page: 'plants' }]);
});

// The mock API of leegilmorecode/serverless-openapi (movie-service-code), its shape: the body carried to the response
// template in $context.requestOverride.path.body; `{"statusCode": 201,}` is read though it is not JSON.
test("a mock answers with the request's body, carried by a request override to its response template", async () => {
  const answer = await mock(
    'POST',
    '/echoed',
    { 'Content-Type': 'application/json' },
    '{"name": "fern", "pot": "clay"}',
  );
  expect([answer.status, JSON.parse(answer.text)]).toEqual([201, { id: 'p-1', name: 'fern', pot: 'clay' }]);
});

// CDK's addCorsPreflight with several origins: the first a static header, the others set by a response template's
// $context.responseOverride.header when the request's Origin is one of them (aws-cdk-lib, aws-apigateway Resource).
test("CDK's preflight for several origins allows each of them, by its response template's header override", async () => {
  const [first, second] = corsOrigins;
  for (const [origin, allowed] of [
    [second, second],
    [first, first],
    ['https://other.example.com', first],
  ]) {
    const answer = await mock('OPTIONS', '/cors', { Origin: String(origin), 'Access-Control-Request-Method': 'GET' });
    expect([answer.status, answer.headers.get('access-control-allow-origin')]).toEqual([204, allowed]);
  }
});
