// Loopback is not reachable from web pages (issue 41, item 8). A page on a name whose DNS it rebinds to 127.0.0.1 (DNS
// rebinding) sends its own name as Host (RFC 9110 section 7.2): the gateway, its pages, the database, the issuer and
// the local services (which, like the database, refuse any Origin) answer loopback names alone (RFC 6761 section 6.3 for .localhost), and the gateway the names --allowed-host gives,
// as Vite's `server.allowedHosts` (https://vite.dev/config/server-options#server-allowedhosts) and webpack-dev-server's
// `allowedHosts` (https://webpack.js.org/configuration/dev-server/#devserverallowedhosts) do against this attack. The
// database refuses browsers outright: any Origin header, any preflight (Fetch standard, "CORS protocol").
import { request as httpRequest } from 'node:http';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { rawExchange } from 'test-support/raw-http';
import { serveJwks } from '../../src/issuer/dev-issuer.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { signedJsonHeaders } from '../helpers/json-service-call.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request to `url`'s port with the Host, method, headers and body given (fetch may not set Host). */
const send = (
  url: string,
  {
    path = '/',
    method = 'GET',
    headers = {},
    body,
  }: { path?: string; method?: string; headers?: Record<string, string>; body?: string },
) =>
  new Promise<Sent>((resolve, reject) => {
    const { port } = new URL(url);
    const sent = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });

/** A page the runner serves besides the API (as the API reference is): it answers every GET /page. */
const runnerPages = (request: { method?: string; url?: string }, response: { end: (body: string) => void }) => {
  if (request.method !== 'GET' || request.url !== '/page') return false;
  response.end('the page');
  return true;
};

const served = servedBeforeAll(synthesizeFixtureApp, {
  allowedHosts: ['plants.test', '.dev.test'],
  runnerPages: runnerPages as never,
});
const port = () => new URL(served.api.url).port;

describe('the gateway answers loopback hosts and the --allowed-host names alone', () => {
  test('Host: evil.example (a rebound name) is 403 in the Error JSON naming the host and the option; nothing is invoked', async () => {
    const before = served.api.invocations('EchoFunction');
    const answer = await send(served.api.url, { path: '/echo', headers: { Host: `evil.example:${port()}` } });

    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.text)).toEqual({
      error: 403,
      message: expect.stringMatching(/Host "evil\.example:\d+" is not served.*--allowed-host evil\.example to serve/),
    });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(served.api.invocations('EchoFunction')).toBe(before);
    expect(served.log.lines).toContainEqual(expect.stringMatching(/^GET - 403 \(Host evil\.example:\d+ refused\)$/));
  });

  test("an absolute-form target names the host (RFC 9112 section 3.2.2): another site's is refused", async () => {
    const answer = await send(served.api.url, { path: 'http://evil.example/echo', headers: { Host: 'localhost' } });
    expect(answer.status).toBe(403);
  });

  test.each([
    ['localhost:PORT', () => `localhost:${port()}`],
    ['127.0.0.1:PORT', () => `127.0.0.1:${port()}`],
    ['[::1]:PORT', () => `[::1]:${port()}`],
    ['localhost with another port (a proxy in front)', () => 'localhost:5173'],
    ['a name under .localhost (RFC 6761 section 6.3)', () => `plants.localhost:${port()}`],
    ['a name --allowed-host gives', () => `plants.test:${port()}`],
    ['a subdomain of a .name --allowed-host gives', () => `api.dev.test:${port()}`],
  ])('Host: %s is served', async (_case, host) => {
    const answer = await send(served.api.url, { path: '/echo', headers: { Host: host() } });
    expect(answer.status).toBe(200);
  });

  test('a page on another origin calling the API by a loopback host is served: only the Host is checked, not the Origin', async () => {
    const answer = await send(served.api.url, {
      path: '/echo',
      headers: { Host: `127.0.0.1:${port()}`, Origin: 'http://localhost:5173' },
    });
    expect(answer.status).toBe(200);
  });

  test("the runner's own pages (the API reference) answer loopback hosts alone", async () => {
    expect((await send(served.api.url, { path: '/page', headers: { Host: `localhost:${port()}` } })).text).toBe(
      'the page',
    );
    const refused = await send(served.api.url, { path: '/page', headers: { Host: 'evil.example' } });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('the page');
  });
});

describe('the database answers programs on loopback, not web pages', () => {
  const preflight = {
    Host: '', // set per test
    Origin: 'http://evil.example',
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': 'content-type,x-amz-target',
  };

  test('a CORS preflight is refused, with no Access-Control-Allow-Origin', async () => {
    const endpoint = served.api.databaseEndpoint;
    const answer = await send(endpoint, {
      method: 'OPTIONS',
      headers: { ...preflight, Host: new URL(endpoint).host },
    });
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['access-control-allow-headers']).toBeUndefined();
  });

  test('a request with an Origin (a page posting to it) is refused, and does nothing', async () => {
    const endpoint = served.api.databaseEndpoint;
    const answer = await send(endpoint, {
      method: 'POST',
      headers: {
        Host: new URL(endpoint).host,
        Origin: 'http://evil.example',
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      },
      body: '{}',
    });
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(answer.text)).toEqual({
      __type: 'com.amazon.coral.service#AccessDeniedException',
      message: expect.stringContaining('Origin'),
    });
  });

  test('a request naming another host (a rebound name, no Origin: same-origin to the page) is refused', async () => {
    const answer = await send(served.api.databaseEndpoint, {
      method: 'POST',
      headers: {
        Host: `evil.example:${new URL(served.api.databaseEndpoint).port}`,
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      },
      body: '{}',
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('evil.example');
    expect(answer.text).not.toContain('TableNames');
  });

  test('a refused request with 1 MiB of body still to come: the 403 is read, the connection not reset', async () => {
    // The refusal is sent once the body is read: sent at once with the connection closing, a reset can take it away
    // before the client reads it (RFC 9112 section 9.6; rawExchange fails on a reset).
    const request = Buffer.concat([
      Buffer.from('POST / HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 1048576\r\nConnection: close\r\n\r\n'),
      Buffer.alloc(1024 * 1024, 'x'),
    ]);
    expect(await rawExchange(served.api.databaseEndpoint, request)).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
  });

  test('the AWS SDK (Host 127.0.0.1:port, no Origin) reads and writes as before', async () => {
    const client = new DynamoDBClient({
      endpoint: served.api.databaseEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'HostCheck',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await waitUntilTableExists({ client, minDelay: 1, maxDelay: 1, maxWaitTime: 30 }, { TableName: 'HostCheck' });
      await client.send(new PutItemCommand({ TableName: 'HostCheck', Item: { id: { S: 'a' } } }));
      const { Item } = await client.send(new GetItemCommand({ TableName: 'HostCheck', Key: { id: { S: 'a' } } }));
      expect(Item).toEqual({ id: { S: 'a' } });
      expect((await client.send(new ListTablesCommand({}))).TableNames).toContain('HostCheck');
    } finally {
      client.destroy();
    }
  });
});

describe("the development issuer's JWKS answers loopback hosts alone", () => {
  let jwks: Awaited<ReturnType<typeof serveJwks>>;
  beforeAll(async () => {
    jwks = await serveJwks(() => [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }]);
  });
  afterAll(() => jwks.close());

  test('Host: evil.example is 403; Host 127.0.0.1:port (a function fetching it) gets the keys', async () => {
    const path = '/.well-known/jwks.json';
    const refused = await send(jwks.url, { path, headers: { Host: 'evil.example' } });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('keys');
    const answered = await send(jwks.url, { path, headers: { Host: new URL(jwks.url).host } });
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toEqual({ keys: [expect.objectContaining({ kty: 'EC' })] });
  });
});

describe('the local services (SSM, Secrets Manager) answer loopback hosts alone, and no web page', () => {
  let services: Awaited<ReturnType<typeof startLocalServices>>;
  beforeAll(async () => {
    const seeds = { parameters: [{ source: 'S/P', name: '/p', type: 'String', value: 'v' }], secrets: [], notices: [] };
    services = await startLocalServices({ dataDir: undefined, seeds, log: () => undefined });
  });
  afterAll(() => services.close());

  test('Host: evil.example or an Origin is 403; an SDK-like call on 127.0.0.1 gets the parameter', async () => {
    const body = '{"Name":"/p"}';
    const signed = await signedJsonHeaders(services.urls.ssm, { target: 'AmazonSSM.GetParameter', body });
    const call = (headers: Record<string, string>) =>
      send(services.urls.ssm, { method: 'POST', headers: { ...signed, ...headers }, body });
    for (const refused of [await call({ Host: 'evil.example' }), await call({ Origin: 'https://evil.example' })]) {
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.text)).toMatchObject({ __type: 'AccessDeniedException' });
    }
    const answered = await call({ Host: new URL(services.urls.ssm).host });
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({ Parameter: { Name: '/p', Value: 'v' } });
  });
});
