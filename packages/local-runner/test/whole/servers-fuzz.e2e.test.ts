// No request, whatever its bytes, ends the runner (issue 41, items 7-8; the rule every server of the runner keeps):
// thousands of random requests sent raw over TCP to a live runner's gateway and database (the start command, as a user
// runs it), to the development issuer's JWKS server and to the local services' (SSM, Secrets Manager): request
// lines, methods, paths with bad percent-encoding, Host variants, headers and bodies (null, non-JSON, large, binary,
// truncated). Each complete request gets an HTTP answer
// (RFC 9112: a malformed one Node's parser refuses gets 400, section 3.2 and 5; the gateway's as JSON); one whose
// bytes end early (the client half-closes before its body or header section is whole) cannot be answered, and the
// connection closes cleanly, with at most an answer to what was whole. Afterwards the runner still serves. The Runtime
// API has its own (lambda/). A failure names the seed that makes the same requests again (fc.sample's).
import { connect } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { serveJwks } from '../../src/issuer/dev-issuer.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { signedJsonHeaders } from '../helpers/json-service-call.ts';
import { type Launched, startApp, stopStarted } from '../helpers/runner-process.ts';

/** A request as bytes, and whether it is whole (then it must be answered) or ends early (the client half-closes). */
interface RawRequest {
  bytes: Buffer;
  whole: boolean;
}

/**
 * Sends `request` on a connection of its own to `port` and resolves with all the server wrote until it closed. A whole
 * request asks for `Connection: close`; a truncated one half-closes the connection, as a client that gives up does.
 */
const exchange = (port: number, { bytes, whole }: RawRequest) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (whole ? socket.write(bytes) : socket.end(bytes)));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // A reset (the server dropping a connection it cannot parse) is a close too.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });

/** An answer is an HTTP/1.1 status line first (after any 100 Continue). */
const answered = (raw: string) => /^HTTP\/1\.1 \d{3} /.test(raw);

/** Request-target text: mostly paths that reach something, with bad percent-encoding, and random printable text. */
const pathOf = (known: string[]) =>
  fc.oneof(
    fc.constantFrom(
      ...known,
      '/',
      '//',
      '*',
      '/%',
      '/%E0%A4%A',
      '/%ZZ',
      '/%00',
      '/%C0%AF',
      '/..%2F..%2Fetc%2Fpasswd',
      '/./../..',
      'http://evil.example/',
      'http://localhost/echo',
      'localhost:443',
    ),
    fc
      .tuple(
        fc.constantFrom(...known),
        fc.string({ unit: fc.constantFrom('%', 'E', '0', 'a', '/', '?', '&', '=', '+', '#', 'é', ' ', '.') }),
      )
      .map(([path, tail]) => `${path}${tail}`),
    fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((text) => `/${text.replace(/[\r\n]/g, '')}`),
  );

/** Host header lines: none, loopback ones, another site's, malformed, two of them. */
const hostLinesOf = (port: number): fc.Arbitrary<string[]> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<string[]>(['localhost'], [`localhost:${port}`], [`127.0.0.1:${port}`], ['[::1]']),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom<string[]>(
        [],
        ['evil.example'],
        [`evil.example:${port}`],
        ['a.localhost'],
        [''],
        ['localhost:x'],
        ['[::1'],
        ['localhost', 'evil.example'],
        [`${'a'.repeat(300)}.example`],
        ['\u00e9vil.example'],
      ),
    },
  );

/** Other headers, never the framing ones (Content-Length, Transfer-Encoding, Connection, Expect): the body below frames. */
const headerLine = fc.oneof(
  fc.constantFrom(
    'Origin: http://evil.example',
    'Origin: null',
    'Access-Control-Request-Method: POST',
    'Content-Type: application/json',
    'Content-Type: application/x-amz-json-1.0',
    'Content-Type: text/plain; charset=%%%',
    'Authorization: Bearer abc',
    'Authorization: ',
    'X-Amz-Target: DynamoDB_20120810.PutItem',
    'X-Amz-Target: DynamoDB_20120810.Scan',
    'X-Amz-Target: DynamoDB_20120810.CreateTable',
    'X-Amz-Target: DynamoDB_20120810.Nope',
    // What the database process answers itself (database/streams/).
    'X-Amz-Target: DynamoDB_20120810.TransactWriteItems',
    'X-Amz-Target: DynamoDB_20120810.UpdateTable',
    'X-Amz-Target: DynamoDB_20120810.UpdateTimeToLive',
    'X-Amz-Target: DynamoDBStreams_20120810.GetShardIterator',
    'X-Amz-Target: DynamoDBStreams_20120810.GetRecords',
    'X-Amz-Target: ',
    'X-API-Key: key',
    'Accept: */*',
    'Cookie: a=%E0%A4%A',
    'X-Forwarded-For: %%',
  ),
  fc
    .tuple(
      fc.string({
        unit: fc.constantFrom('a', 'B', '-', '_', '(', ':', ' ', '\u0000', '\u00ff'),
        minLength: 0,
        maxLength: 8,
      }),
      fc.string({ unit: 'binary-ascii', maxLength: 30 }),
    )
    .map(([name, value]) => `${name}: ${value}`.replace(/[\r\n]/g, '')),
);

/** Bodies: none, null, JSON and not, binary, large. */
const body = fc.oneof(
  fc.constantFrom('', 'null', '{', '[]', '"x"', '{"a":1}', 'not json', '{"TableName": null}', '\u0000\u00ff'),
  fc.constantFrom(
    '{"TransactItems":[null,{"Put":null},{"Update":"x"},{"ConditionCheck":{"TableName":"plants","Key":7}}]}',
    '{"TransactItems":[{"Delete":{"TableName":"plants","Key":{"id":{"S":"1"}}}}]}',
    '{"TableName":"plants","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NOPE"}}',
    '{"TableName":"plants","TimeToLiveSpecification":{"Enabled":"yes"}}',
    '{"StreamArn":7,"ShardId":[],"ShardIteratorType":"AT_SEQUENCE_NUMBER","SequenceNumber":"9"}',
    '{"ShardIterator":"eyJhcm4iOjF9","Limit":-1}',
  ),
  fc.json(),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.constantFrom(1024 * 1024, 64 * 1024).map((size) => 'x'.repeat(size)),
);

const methodOf = fc.oneof(
  fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'CONNECT', 'TRACE', 'get', 'PRI'),
  fc.string({ unit: fc.constantFrom('A', 'Z', 'x', '-', '!', ' ', '\u0000'), minLength: 1, maxLength: 6 }),
);

/** A random request to a server on `port` whose known paths are `known`. */
const requestOf = (port: number, known: string[]): fc.Arbitrary<RawRequest> =>
  fc
    .record({
      method: methodOf,
      path: pathOf(known),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.x'),
      hosts: hostLinesOf(port),
      headers: fc.array(headerLine, { maxLength: 5 }),
      body,
      chunked: fc.boolean(),
      // Truncated: the bytes end before the header section or the body does.
      truncatedAt: fc.option(fc.double({ min: 0, max: 0.999, noNaN: true }), { freq: 5 }),
    })
    .map(({ method, path, version, hosts, headers, body: text, chunked, truncatedAt }) => {
      const content = Buffer.from(text, 'latin1');
      const framing = chunked
        ? ['Transfer-Encoding: chunked']
        : content.length > 0 || method === 'POST'
          ? [`Content-Length: ${content.length}`]
          : [];
      const payload = chunked
        ? Buffer.concat([
            Buffer.from(content.length > 0 ? `${content.length.toString(16)}\r\n` : ''),
            content,
            Buffer.from(content.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n'),
          ])
        : content;
      const head = [
        `${method} ${path} ${version}`,
        ...hosts.map((host) => `Host: ${host}`),
        ...headers,
        ...framing,
        'Connection: close',
        '',
        '',
      ].join('\r\n');
      const bytes = Buffer.concat([Buffer.from(head, 'latin1'), payload]);
      if (truncatedAt === null) return { bytes, whole: true };
      return { bytes: bytes.subarray(0, Math.floor(bytes.length * truncatedAt)), whole: false };
    });

/** The first bytes of a request or an answer, readable in a failure's report. */
const shown = (bytes: Buffer | string) => JSON.stringify(bytes.toString('latin1').slice(0, 160));

/**
 * Sends `count` random requests to `port`, 20 at a time: every whole one answered; a truncated one closed, with
 * nothing or an HTTP answer. Resolves with those that were not, described, and the seed that makes them again.
 */
const fuzz = async (port: number, known: string[], count: number) => {
  const seed = Date.now();
  const requests = fc.sample(requestOf(port, known), { seed, numRuns: count });
  const failures: string[] = [];
  for (let start = 0; start < requests.length; start += 20) {
    const batch = requests.slice(start, start + 20);
    const answers = await Promise.all(batch.map((request) => exchange(port, request)));
    batch.forEach((request, index) => {
      const raw = answers[index] ?? '';
      if (request.whole ? !answered(raw) : raw !== '' && !answered(raw))
        failures.push(`${request.whole ? 'whole' : 'truncated'} ${shown(request.bytes)} -> ${shown(raw)}`);
    });
  }
  return { seed, failures };
};

let runner: Launched & { url: string };
let databaseEndpoint: string;

beforeAll(async () => {
  runner = await startApp(synthesizeFixtureApp(), { args: ['--max-workers', '1'] });
  await runner.printed(/Database: http:\/\/127\.0\.0\.1:\d+/);
  databaseEndpoint = /Database: (http:\/\/127\.0\.0\.1:\d+)/.exec(runner.output())?.[1] ?? '';
}, 90_000);

afterAll(stopStarted);

const port = (url: string) => Number(new URL(url).port);

describe('the start command under random requests', () => {
  test('the gateway answers every whole request and stays up; a normal call still works after', async () => {
    const { seed, failures } = await fuzz(port(runner.url), ['/echo', '/items/1', '/secured', '/test/echo'], 1200);
    expect({ seed, failures }).toEqual({ seed, failures: [] });

    expect(runner.child.exitCode).toBeNull();
    expect(runner.output()).not.toContain('local runner error');
    const response = await fetch(`${runner.url}/echo`);
    expect(response.status).toBe(200);
  }, 120_000);

  test('the database answers every whole request and stays up (no restart); the SDK still works after', async () => {
    const { seed, failures } = await fuzz(port(databaseEndpoint), ['/'], 800);
    expect({ seed, failures }).toEqual({ seed, failures: [] });

    expect(runner.child.exitCode).toBeNull();
    expect(runner.output()).not.toContain('database failed');
    const client = new DynamoDBClient({
      endpoint: databaseEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      expect((await client.send(new ListTablesCommand({}))).TableNames).toBeDefined();
    } finally {
      client.destroy();
    }
  }, 120_000);
});

describe("the development issuer's JWKS server under random requests", () => {
  let jwks: Awaited<ReturnType<typeof serveJwks>>;
  beforeAll(async () => {
    jwks = await serveJwks(() => []);
  });
  afterAll(() => jwks.close());

  test('answers every whole request; the keys are still served after', async () => {
    const { seed, failures } = await fuzz(port(jwks.url), ['/.well-known/jwks.json'], 400);
    expect({ seed, failures }).toEqual({ seed, failures: [] });
    const response = await fetch(jwks.jwksUri);
    expect(await response.json()).toEqual({ keys: [] });
  }, 60_000);
});

describe('the local services (SSM, Secrets Manager) under random requests', () => {
  let services: Awaited<ReturnType<typeof startLocalServices>>;
  beforeAll(async () => {
    const seeds = { parameters: [{ source: 'S/P', name: '/p', type: 'String', value: 'v' }], secrets: [], notices: [] };
    services = await startLocalServices({ dataDir: undefined, seeds, log: () => undefined });
  });
  afterAll(() => services.close());

  test('answers every whole request; a parameter is still served after', async () => {
    const { seed, failures } = await fuzz(port(services.urls.ssm), ['/'], 400);
    expect({ seed, failures }).toEqual({ seed, failures: [] });
    const body = '{"Name":"/p"}';
    const headers = await signedJsonHeaders(services.urls.ssm, { target: 'AmazonSSM.GetParameter', body });
    const response = await fetch(services.urls.ssm, { method: 'POST', headers, body });
    expect(await response.json()).toMatchObject({ Parameter: { Value: 'v' } });
  }, 60_000);
});

// The local Kinesis takes HTTP/1.1 and HTTP/2 on one port (both-http-versions.ts, whose own test sends random bytes and
// HTTP/2 frames): the same random HTTP/1.1 requests as the other services', then a signed call still answered.
describe('the local Kinesis under random HTTP/1.1 requests', () => {
  let services: Awaited<ReturnType<typeof startLocalServices>>;
  beforeAll(async () => {
    const kinesis = [{ source: 'S/K', name: 'k', mode: 'PROVISIONED' as const, shardCount: 1, retentionHours: 24 }];
    services = await startLocalServices({
      dataDir: undefined,
      seeds: { parameters: [], secrets: [], notices: [], kinesis },
      log: () => undefined,
    });
  });
  afterAll(() => services.close());

  test('answers every whole request; the stream is still served after', async () => {
    const { seed, failures } = await fuzz(port(services.urls.kinesis), ['/'], 400);
    expect({ seed, failures }).toEqual({ seed, failures: [] });
    const body = '{"StreamName":"k"}';
    const headers = await signedJsonHeaders(services.urls.kinesis, {
      target: 'Kinesis_20131202.DescribeStreamSummary',
      body,
      service: 'kinesis',
    });
    const response = await fetch(services.urls.kinesis, { method: 'POST', headers, body });
    expect(await response.json()).toMatchObject({ StreamDescriptionSummary: { StreamName: 'k', OpenShardCount: 1 } });
  }, 60_000);
});
