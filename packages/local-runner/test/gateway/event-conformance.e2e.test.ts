// The events the local runner delivers, key by key against what events captured on AWS showed (the facts in
// fixtures/aws-event-shapes.ts and below, each naming the repository, path and commit it was observed in), and against
// the schemas of @aws-lambda-powertools/parser. The same requests are sent through the start command (serving the
// fixture app) and the events it delivered are read from its event log (LOCAL_RUNNER_EVENT_LOG). Every other event the
// test suite makes a runner deliver is checked against the schemas too, after the run (test/global-teardown.ts).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayProxyEventSchema,
  APIGatewayTokenAuthorizerEventSchema,
} from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jsonTypes, restProxyBehindAuthorizer, tokenAuthorizerEvent } from '../fixtures/aws-event-shapes.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { startApp, stopStarted } from '../helpers/runner-process.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

let url: string;
let eventLog: string;

/** The events the runner delivered so far, in order, with the function each went to. */
const delivered = () =>
  readdirSync(eventLog).flatMap((file) =>
    readFileSync(join(eventLog, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { functionId: string; event: JsonObject }),
  );

/**
 * The events one request made the runner deliver: the authorizer's (if any) and the function's. Sent with node:http,
 * which sends a header given several values as several lines, as curl does.
 */
const eventsOf = async (
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string | string[]>; body?: string },
) => {
  const before = delivered().length;
  const status = await new Promise<number | undefined>((resolve, reject) => {
    request(`${url}${path}`, { method, headers }, (response) => {
      response.resume().on('end', () => resolve(response.statusCode));
    })
      .on('error', reject)
      .end(body);
  });
  expect(status).toBe(200);
  const events = delivered().slice(before);
  return {
    authorizer: events.find(({ event }) => event.type === 'TOKEN')?.event,
    proxy: events.find(({ event }) => event.type !== 'TOKEN')?.event,
  };
};

beforeAll(async () => {
  eventLog = mkdtempSync(join(tmpdir(), 'local-runner-event-log-'));
  ({ url } = await startApp(synthesizeFixtureApp(), {
    args: ['--max-workers', '1'],
    env: { ...process.env, LOCAL_RUNNER_EVENT_LOG: eventLog },
  }));
}, 90_000);

afterAll(stopStarted);

// aws-powertools/powertools-lambda-typescript, packages/parser/tests/events/apigw-rest/lambda-authorizer-auth.json and
// authorizer-token.json at 1e5fe1b497003615377ceb8e03b4321ce6260815: a POST with no body behind a TOKEN authorizer.
describe('a POST behind a TOKEN authorizer, as powertools-lambda-typescript captured one', () => {
  let events: Awaited<ReturnType<typeof eventsOf>>;
  beforeAll(async () => {
    events = await eventsOf('/secured', {
      method: 'POST',
      headers: { Authorization: 'Bearer allow', 'User-Agent': 'HTTPie/3.2.2' },
    });
  });

  test('the proxy event has the keys of the captured one, each of the same JSON type', () => {
    const event = events.proxy;
    expect(jsonTypes(event)).toEqual(restProxyBehindAuthorizer.event);
    const context = (event?.requestContext ?? {}) as JsonObject;
    expect(jsonTypes(context)).toEqual(restProxyBehindAuthorizer.requestContext);
    expect(jsonTypes(context.identity)).toEqual(restProxyBehindAuthorizer.identity);
    // The authorizer's principal and its latency, beside its context (`Bearer allow` returns user, level, admin).
    expect(jsonTypes(context.authorizer)).toMatchObject(restProxyBehindAuthorizer.authorizer);
    expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  });

  test("the authorizer's event is the captured one's shape: the token as sent, the method's ARN", () => {
    expect(jsonTypes(events.authorizer)).toEqual(tokenAuthorizerEvent);
    // Captured: `Bearer foo` as sent, and a methodArn ending in /prod/POST/lambda-token (stage, method, path).
    expect(events.authorizer).toMatchObject({
      type: 'TOKEN',
      authorizationToken: 'Bearer allow',
      methodArn: expect.stringMatching(/^arn:aws:execute-api:[\w-]+:\d{12}:\w+\/test\/POST\/secured$/),
    });
    expect(APIGatewayTokenAuthorizerEventSchema.safeParse(events.authorizer).error).toBeUndefined();
  });
});

// hotsock/voker, vokerhttp/testdata/apigwv1-request.json at 59c7289ac4c579691e5eb05e8ede5f75fe601846: a regional REST
// API in us-west-2, `POST /live/capture/space%20value` on a `/{proxy+}` resource with this query string, the header
// `x-voker-probe` sent twice, two cookies in one header and a JSON body. The values asserted below are what it showed.
describe('a POST with an encoded path, repeated headers and query strings, as captured in us-west-2 (hotsock/voker)', () => {
  const query =
    '?empty=&encodedPlus=a%2Bb&literalPlus=a+b&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&repeat=one&repeat=two';
  const body = JSON.stringify({ plant: 'fern', unicode: 'lambda-λ' });
  let event: JsonObject | undefined;
  beforeAll(async () => {
    ({ proxy: event } = await eventsOf(`/routes/things/capture/space%20value${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: 'session=abc123; theme=dark',
        'x-probe': ['first', 'second'],
      },
      body,
    }));
  });

  test('the path and the greedy path parameter stay percent-encoded', () => {
    // Captured: path `/capture/space%20value`, resource `/{proxy+}`, `proxy: "capture/space%20value"` and
    // requestContext.path `/live/capture/space%20value`. The fixture's resource is /routes/things/{proxy+}, its stage test.
    expect(event?.path).toBe('/routes/things/capture/space%20value');
    expect(event?.pathParameters).toEqual({ proxy: 'capture/space%20value' });
    expect(event).toMatchObject({
      resource: '/routes/things/{proxy+}',
      requestContext: { path: '/test/routes/things/capture/space%20value' },
    });
  });

  test("query strings: decoded, '+' a space, %2B a plus, the last value and every value", () => {
    expect(event?.queryStringParameters).toEqual({
      empty: '',
      encodedPlus: 'a+b',
      literalPlus: 'a b',
      redirect: 'https://example.com/a/b',
      repeat: 'two',
    });
    expect(event?.multiValueQueryStringParameters).toEqual({
      empty: [''],
      encodedPlus: ['a+b'],
      literalPlus: ['a b'],
      redirect: ['https://example.com/a/b'],
      repeat: ['one', 'two'],
    });
  });

  test('headers as sent: a repeated one is its last value, and every value in multiValueHeaders', () => {
    const pick = (headers: Json | undefined) =>
      Object.fromEntries(['content-type', 'cookie', 'x-probe'].map((name) => [name, (headers as JsonObject)[name]]));
    const cookie = 'session=abc123; theme=dark';
    expect(pick(event?.headers)).toEqual({ 'content-type': 'application/json', cookie, 'x-probe': 'second' });
    expect(pick(event?.multiValueHeaders)).toEqual({
      'content-type': ['application/json'],
      cookie: [cookie],
      'x-probe': ['first', 'second'],
    });
  });

  test('the body as text, not base64', () => {
    expect([event?.body, event?.isBase64Encoded]).toEqual([body, false]);
    expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  });
});
