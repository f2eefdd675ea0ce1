// What the AWS SDK gave createPlant and its lean DynamoDB client must still give: signed requests with the session
// token, the endpoint from the environment, retries of what a retry may cure, time limits, kept-alive connections.
// DynamoDB's faults come from loopback servers that answer as DynamoDB does (dynalite never fails).
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { listenOnLoopback } from 'cdk-local-runner';
import { createDynamoDbClient, DynamoDbError, dynamoDbEndpoint } from '../../../functions/commons/dynamodb-client.ts';

const servers: Server[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback DynamoDB that answers the n-th request (from 0) with `answer(n)`, and records what it was sent. */
const fakeDynamoDb = async (answer: (n: number, response: ServerResponse) => void) => {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      answer(seen.length - 1, response);
    });
  }).on('connection', () => {
    connections += 1;
  });
  servers.push(server);
  return { endpoint: await listenOnLoopback(server), seen, connections: () => connections };
};

const json = (response: ServerResponse, status: number, body: object) =>
  response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
const dynamoError = (response: ServerResponse, status: number, type: string) =>
  json(response, status, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type} happened` });

const input = { TableName: 'plants', Key: { id: { N: '9223372036854775807' } } };

describe('a request', () => {
  test('is the JSON input, exactly, with the action in X-Amz-Target', async () => {
    const db = await fakeDynamoDb((_n, response) => json(response, 200, { Item: { id: { N: '1' } } }));
    const client = createDynamoDbClient({ endpoint: db.endpoint });

    expect(await client.call('GetItem', input)).toEqual({ Item: { id: { N: '1' } } });
    expect(db.seen[0]?.body).toBe(JSON.stringify(input));
    expect(db.seen[0]?.headers).toMatchObject({
      'x-amz-target': 'DynamoDB_20120810.GetItem',
      'content-type': 'application/x-amz-json-1.0',
    });
    client.destroy();
  });

  test("is signed (SigV4) with the environment's credentials and session token, as the SDK's own signer would", async () => {
    const db = await fakeDynamoDb((_n, response) => json(response, 200, {}));
    Object.assign(process.env, { AWS_SESSION_TOKEN: 'session-token-1' });
    const client = createDynamoDbClient({ endpoint: db.endpoint });
    await client.call('GetItem', input);
    client.destroy();
    delete process.env.AWS_SESSION_TOKEN;

    const [request] = db.seen;
    if (!request) throw new Error('nothing was sent');
    expect(request.headers['x-amz-security-token']).toBe('session-token-1');
    // The SDK's signer, given the same request, time and credentials, must write the same Authorization.
    const amzDate = String(request.headers['x-amz-date']);
    const signingDate = new Date(
      amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    const signer = new SignatureV4({
      service: 'dynamodb',
      region: String(process.env.AWS_REGION),
      credentials: {
        accessKeyId: String(process.env.AWS_ACCESS_KEY_ID),
        secretAccessKey: String(process.env.AWS_SECRET_ACCESS_KEY),
        sessionToken: 'session-token-1',
      },
      sha256: NodeSha256,
      applyChecksum: false,
    });
    // The headers the request says it signed; the signer adds the date and token itself.
    const signedNames =
      String(request.headers.authorization)
        .match(/SignedHeaders=([^,]+)/)?.[1]
        ?.split(';') ?? [];
    expect(signedNames).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'x-amz-target']));
    const headers = Object.fromEntries(
      signedNames
        .filter((name) => name !== 'x-amz-date' && name !== 'x-amz-security-token')
        .map((name) => [name, String(request.headers[name])]),
    );
    const expected = await signer.sign(
      {
        method: 'POST',
        protocol: 'http:',
        hostname: '127.0.0.1',
        path: '/',
        query: {},
        headers,
        body: request.body,
      },
      { signingDate },
    );
    expect(request.headers.authorization).toBe(expected.headers.authorization);
    expect(request.headers.authorization).toMatch(/Credential=test\/\d{8}\/[a-z0-9-]+\/dynamodb\/aws4_request/);
  });

  test('keeps its connection open for the next one (one connection for three calls)', async () => {
    const db = await fakeDynamoDb((_n, response) => json(response, 200, {}));
    const client = createDynamoDbClient({ endpoint: db.endpoint });
    for (let n = 0; n < 3; n += 1) await client.call('GetItem', input);

    expect(db.seen).toHaveLength(3);
    expect(db.connections()).toBe(1);
    client.destroy();
  });

  test('goes to AWS_ENDPOINT_URL_DYNAMODB, before AWS_ENDPOINT_URL (the SDKs’ service-specific override)', async () => {
    const dynamoDbOnly = await fakeDynamoDb((_n, response) => json(response, 200, {}));
    const everyService = await fakeDynamoDb((_n, response) => json(response, 200, {}));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamoDbOnly.endpoint,
      AWS_ENDPOINT_URL: everyService.endpoint,
    });
    const first = createDynamoDbClient();
    await first.call('GetItem', input);
    delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
    const second = createDynamoDbClient();
    await second.call('GetItem', input);
    delete process.env.AWS_ENDPOINT_URL;

    expect(dynamoDbOnly.seen).toHaveLength(1);
    expect(everyService.seen).toHaveLength(1);
    first.destroy();
    second.destroy();
  });
});

test('without an endpoint variable, the regional endpoint is the one', () => {
  expect(dynamoDbEndpoint('eu-west-3', {})).toBe('https://dynamodb.eu-west-3.amazonaws.com');
  expect(dynamoDbEndpoint('cn-north-1', {})).toBe('https://dynamodb.cn-north-1.amazonaws.com.cn');
  expect(dynamoDbEndpoint('eu-west-3', { AWS_ENDPOINT_URL: 'http://127.0.0.1:8000' })).toBe('http://127.0.0.1:8000');
  // An empty value (sam local --env-vars clears a variable so) is no value.
  expect(dynamoDbEndpoint('eu-west-3', { AWS_ENDPOINT_URL_DYNAMODB: '' })).toBe(
    'https://dynamodb.eu-west-3.amazonaws.com',
  );
});

describe('retries', () => {
  test.each([
    [
      'throttling (400 ThrottlingException)',
      (response: ServerResponse) => dynamoError(response, 400, 'ThrottlingException'),
    ],
    [
      'provisioned throughput exceeded',
      (response: ServerResponse) => dynamoError(response, 400, 'ProvisionedThroughputExceededException'),
    ],
    ['a server fault (500)', (response: ServerResponse) => dynamoError(response, 500, 'InternalServerError')],
    ['a 503 without a body', (response: ServerResponse) => response.writeHead(503).end()],
    ['a reset connection', (response: ServerResponse) => response.socket?.destroy()],
  ])('%s: tried again, and the third attempt answers', async (_case, fault) => {
    const db = await fakeDynamoDb((n, response) => (n < 2 ? fault(response) : json(response, 200, { ok: 1 })));
    const client = createDynamoDbClient({ endpoint: db.endpoint });

    expect(await client.call('PutItem', input)).toEqual({ ok: 1 });
    expect(db.seen).toHaveLength(3);
    client.destroy();
  });

  test('stop after 3 attempts, with the last error, marked retryable', async () => {
    const db = await fakeDynamoDb((_n, response) => dynamoError(response, 400, 'ThrottlingException'));
    const client = createDynamoDbClient({ endpoint: db.endpoint });

    const failure = client.call('PutItem', input);

    await expect(failure).rejects.toBeInstanceOf(DynamoDbError);
    await expect(failure).rejects.toMatchObject({ name: 'ThrottlingException', retryable: true, statusCode: 400 });
    expect(db.seen).toHaveLength(3);
    client.destroy();
  });

  test('never for what a retry cannot cure (a failed condition, a validation error)', async () => {
    for (const type of ['ConditionalCheckFailedException', 'ValidationException']) {
      const db = await fakeDynamoDb((_n, response) => dynamoError(response, 400, type));
      const client = createDynamoDbClient({ endpoint: db.endpoint });

      await expect(client.call('PutItem', input)).rejects.toMatchObject({ name: type, retryable: false });
      expect(db.seen).toHaveLength(1);
      client.destroy();
    }
  });

  test('wait a random ("full jitter") backoff, growing with each attempt', async () => {
    const db = await fakeDynamoDb((_n, response) => dynamoError(response, 500, 'InternalServerError'));
    const client = createDynamoDbClient({ endpoint: db.endpoint, maxAttempts: 3, backoffBaseMs: 40 });
    jest.spyOn(Math, 'random').mockReturnValueOnce(0.5).mockReturnValueOnce(0.25);
    const timers = jest.spyOn(globalThis, 'setTimeout');

    await expect(client.call('PutItem', input)).rejects.toMatchObject({ retryable: true });
    // 0.5 of the base, then 0.25 of twice the base.
    expect(timers.mock.calls.map(([, ms]) => ms)).toEqual([20, 20]);
    client.destroy();
  });

  test('stop at the caller’s abort, even while waiting to retry', async () => {
    const deadline = new AbortController();
    // The deadline passes as the first (failed) answer is written: the client is then due to wait up to a minute.
    const db = await fakeDynamoDb((_n, response) => {
      dynamoError(response, 500, 'InternalServerError');
      deadline.abort();
    });
    const client = createDynamoDbClient({ endpoint: db.endpoint, backoffBaseMs: 60_000 });

    await expect(client.call('PutItem', input, deadline.signal)).rejects.toMatchObject({ retryable: true });
    expect(db.seen).toHaveLength(1);
    client.destroy();
  });
});

test('an attempt that gets no answer within its limit ends, and is retried', async () => {
  const db = await fakeDynamoDb(() => undefined);
  const client = createDynamoDbClient({ endpoint: db.endpoint, attemptTimeoutMs: 100, maxAttempts: 2 });

  const failure = client.call('PutItem', input);

  await expect(failure).rejects.toMatchObject({ name: 'NetworkError', retryable: true, statusCode: undefined });
  await expect(failure).rejects.toHaveProperty('message', 'DynamoDB did not answer: no answer within 100 ms');
  expect(db.seen).toHaveLength(2);
  client.destroy();
});

test('without credentials in the environment, nothing is sent and the error says what is missing', async () => {
  const db = await fakeDynamoDb((_n, response) => json(response, 200, {}));
  const secret = process.env.AWS_SECRET_ACCESS_KEY;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  const client = createDynamoDbClient({ endpoint: db.endpoint });

  await expect(client.call('GetItem', input)).rejects.toThrow('AWS_SECRET_ACCESS_KEY is not set');
  process.env.AWS_SECRET_ACCESS_KEY = secret;
  expect(db.seen).toHaveLength(0);
  client.destroy();
});

/** SHA-256 (and HMAC) for the SDK's signer, from node:crypto. */
class NodeSha256 {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.#hash.update(toBuffer(data));
  }
  async digest() {
    return new Uint8Array(this.#hash.digest());
  }
  reset() {}
}
const toBuffer = (data: string | ArrayBuffer | ArrayBufferView) =>
  typeof data === 'string'
    ? Buffer.from(data)
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);
