// An HTTP API's first-class AWS service integrations ("Create AWS service integrations for HTTP APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services.html; the
// "Integration subtype reference",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html),
// on our fixture app (fixtures/http-services-app.ts): SQS-SendMessage's message consumed by the queue's function,
// EventBridge-PutEvents' event delivered by the bus's rule to its function; and an HTTP_PROXY integration ("Create
// HTTP proxy integrations for HTTP APIs",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-http.html) to a loopback
// server.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { listenOnLoopback } from '../../../src/http-server.ts';
import { synthesizeHttpServicesApp } from '../../fixtures/http-services-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

let backend: Server;
let backendUrl = '';

// The HTTP_PROXY's endpoint: what it was asked, as JSON.
beforeAll(async () => {
  backend = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      response.writeHead(201, { 'Content-Type': 'application/json', 'X-Backend': 'loopback' });
      response.end(
        JSON.stringify({ method: request.method, url: request.url, body, tenant: request.headers['x-tenant'] }),
      );
    });
  });
  backendUrl = await listenOnLoopback(backend);
});
afterAll(() => new Promise<void>((resolve) => backend.close(() => resolve())));

const served = servedBeforeAll(() => synthesizeHttpServicesApp(backendUrl));

const post = (path: string, body: string) =>
  fetch(`${served.api.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

test("SQS-SendMessage: the body is the message, its attribute mapped from $context; the queue's function consumes it", async () => {
  const consumed = served.functionLog.seen(/CONSUMED \{"plant":"fern"\}/);
  const response = await post('/orders', JSON.stringify({ plant: 'fern' }));
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ MessageId: expect.any(String), MD5OfMessageBody: expect.any(String) });
  await consumed;
});

test("EventBridge-PutEvents: the body is the event's detail, which the bus's rule delivers to its function", async () => {
  const delivered = served.functionLog.seen(/EVENT http\.api \{"plant":"moss"\}/);
  const response = await post('/events', JSON.stringify({ plant: 'moss' }));
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ FailedEntryCount: 0 });
  await delivered;
});

test('HTTP_PROXY: the method, path, query string, headers and body pass through, and the answer back', async () => {
  const response = await fetch(`${served.api.url}/site/a/b?x=1`, {
    method: 'PUT',
    headers: { 'X-Tenant': 'acme' },
    body: 'hello',
  });
  expect(response.status).toBe(201);
  expect(response.headers.get('x-backend')).toBe('loopback');
  expect(await response.json()).toEqual({ method: 'PUT', url: '/a/b?x=1', body: 'hello', tenant: 'acme' });
});
