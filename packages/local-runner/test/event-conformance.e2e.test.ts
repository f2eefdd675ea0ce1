// The events the local runner delivers, key by key against events captured on AWS by people outside this project
// (fixtures/aws-events/, each naming its source), and against the schemas of @aws-lambda-powertools/parser. The
// same requests are sent through the start command (serving the fixture app) and the events it delivered are read from its
// event log (LOCAL_RUNNER_EVENT_LOG). Every other event the test suite makes a runner deliver is checked against the
// schemas too, after the run (test/global-teardown.ts).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayProxyEventSchema,
  APIGatewayTokenAuthorizerEventSchema,
} from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizeFixtureApp } from './fixtures/fixture-app.ts';
import { startApp, stopStarted } from './helpers/runner-process.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const captured = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`./fixtures/aws-events/${name}`, import.meta.url), 'utf8')) as {
      source: string;
      event: JsonObject;
    }
  ).event;

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

/** Each key of an object, with the JSON type of its value ('null', 'string', 'object'...), sorted. */
const keysAndTypes = (value: Json | undefined) =>
  Object.entries((value ?? {}) as JsonObject)
    .map(([key, item]) => `${key}: ${item === null ? 'null' : Array.isArray(item) ? 'array' : typeof item}`)
    .sort();

beforeAll(async () => {
  eventLog = mkdtempSync(join(tmpdir(), 'local-runner-event-log-'));
  ({ url } = await startApp(synthesizeFixtureApp(), {
    args: ['--max-workers', '1'],
    env: { ...process.env, LOCAL_RUNNER_EVENT_LOG: eventLog },
  }));
}, 90_000);

afterAll(stopStarted);

describe('a POST behind a TOKEN authorizer, as powertools-lambda-typescript captured one', () => {
  let events: Awaited<ReturnType<typeof eventsOf>>;
  beforeAll(async () => {
    events = await eventsOf('/secured', {
      method: 'POST',
      headers: { Authorization: 'Bearer allow', 'User-Agent': 'HTTPie/3.2.2' },
    });
  });

  test('the proxy event has the keys of the captured one, each of the same JSON type', () => {
    const capture = captured('rest-proxy-lambda-authorizer.json');
    const event = events.proxy;
    expect(keysAndTypes(event)).toEqual(keysAndTypes(capture));
    const context = (event?.requestContext ?? {}) as JsonObject;
    const capturedContext = capture.requestContext as JsonObject;
    expect(keysAndTypes(context)).toEqual(keysAndTypes(capturedContext));
    expect(keysAndTypes(context.identity)).toEqual(keysAndTypes(capturedContext.identity));
    expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  });

  test("the authorizer's event is the captured one's shape", () => {
    const capture = captured('rest-token-authorizer.json');
    expect(keysAndTypes(events.authorizer)).toEqual(keysAndTypes(capture));
    expect(APIGatewayTokenAuthorizerEventSchema.safeParse(events.authorizer).error).toBeUndefined();
  });
});

describe('a POST with an encoded path, repeated headers and query strings, as captured in us-west-2 (hotsock/voker)', () => {
  const capture = captured('rest-proxy-encoded-path.json');
  const query =
    '?empty=&encodedPlus=a%2Bb&literalPlus=a+b&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&repeat=one&repeat=two';
  let event: JsonObject | undefined;
  beforeAll(async () => {
    ({ proxy: event } = await eventsOf(`/routes/things/capture/space%20value${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: 'session=abc123; theme=dark',
        'x-voker-probe': ['first', 'second'],
      },
      body: JSON.stringify({ message: 'hello from the public internet', unicode: 'lambda-λ' }),
    }));
  });

  test('the path and the greedy path parameter stay percent-encoded', () => {
    // The capture's resource is /{proxy+}; the fixture's is /routes/things/{proxy+}.
    expect(event?.path).toBe(`/routes/things${capture.path}`);
    expect(event?.pathParameters).toEqual({ proxy: (capture.path as string).slice(1) });
    expect((capture.pathParameters as JsonObject).proxy).toBe('capture/space%20value');
  });

  test("query strings: decoded, '+' a space, %2B a plus, the last value and every value", () => {
    expect(event?.queryStringParameters).toEqual(capture.queryStringParameters);
    expect(event?.multiValueQueryStringParameters).toEqual(capture.multiValueQueryStringParameters);
  });

  test('headers as sent: a repeated one is its last value, and every value in multiValueHeaders', () => {
    const pick = (headers: Json | undefined) =>
      Object.fromEntries(
        ['content-type', 'cookie', 'x-voker-probe'].map((name) => [name, (headers as JsonObject)[name]]),
      );
    expect(pick(event?.headers)).toEqual(pick(capture.headers));
    expect(pick(event?.multiValueHeaders)).toEqual(pick(capture.multiValueHeaders));
  });

  test('the body as text, not base64', () => {
    expect([event?.body, event?.isBase64Encoded]).toEqual([capture.body, capture.isBase64Encoded]);
    expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  });
});
