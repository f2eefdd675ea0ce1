// An HTTP API's first-class AWS service integrations ("Create AWS service integrations for HTTP APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services.html; the
// "Integration subtype reference",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html),
// on our fixture app (fixtures/http-services-app.ts): SQS-SendMessage's message consumed by the queue's function,
// EventBridge-PutEvents' event delivered by the bus's rule to its function.
import { expect, test } from '@jest/globals';
import { synthesizeHttpServicesApp } from '../../fixtures/http-services-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeHttpServicesApp);

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
