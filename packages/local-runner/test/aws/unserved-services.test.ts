// The endpoint of the services the runner does not serve, called as SDK clients call AWS: a real SDK client (the
// DynamoDB client, JSON protocol) reads its error as a service error naming the service and operation, without a
// retry; the query protocol and S3's REST-XML get their own error shapes ("AWS protocols" in the Smithy specification).
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { rawExchange } from 'test-support/raw-http';
import { serveUnservedServices } from '../../src/aws/unserved-services.ts';

let endpoint: Awaited<ReturnType<typeof serveUnservedServices>> | undefined;
const log: string[] = [];
beforeAll(async () => {
  endpoint = await serveUnservedServices((line) => log.push(line));
});
afterAll(() => endpoint?.close());

/** An Authorization header as SigV4 signs it for `service` (the runner reads only its credential scope). */
const signedFor = (service: string) =>
  `AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=00`;

test('a JSON-protocol SDK client gets a service error naming the service and the operation, once (no retry)', async () => {
  const client = new DynamoDBClient({
    endpoint: endpoint?.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const before = log.length;
  const failure = await client.send(new ListTablesCommand({})).catch((error: unknown) => error);
  expect(failure).toMatchObject({
    name: 'NotServedLocally',
    message: expect.stringMatching(/^dynamodb ListTables: the local runner does not serve dynamodb/),
    $metadata: { httpStatusCode: 400, attempts: 1 },
  });
  expect(log.slice(before)).toEqual([
    'a function called dynamodb ListTables, which the runner does not serve: answered NotServedLocally (400)',
  ]);
});

test("a query-protocol call (a form-encoded Action) gets the query protocol's ErrorResponse", async () => {
  const response = await fetch(endpoint?.url ?? '', {
    method: 'POST',
    headers: { Authorization: signedFor('sts'), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'Action=GetCallerIdentity&Version=2011-06-15',
  });
  expect(response.status).toBe(400);
  expect(await response.text()).toMatch(
    /^<ErrorResponse><Error><Type>Sender<\/Type><Code>NotServedLocally<\/Code><Message>sts GetCallerIdentity: the local runner does not serve sts .*<\/Message><\/Error><RequestId>[0-9a-f-]{36}<\/RequestId><\/ErrorResponse>$/,
  );
});

test("an S3 call gets REST-XML's Error, its operation named by the request line", async () => {
  const response = await fetch(`${endpoint?.url}/my-bucket/photo.jpg?versionId=1`, {
    headers: { Authorization: signedFor('s3') },
  });
  expect(response.status).toBe(400);
  expect(response.headers.get('x-amzn-errortype')).toBe('NotServedLocally');
  expect(await response.text()).toMatch(
    /^<Error><Code>NotServedLocally<\/Code><Message>s3 GET \/my-bucket\/photo\.jpg: the local runner does not serve s3 .*<\/Message><\/Error>$/,
  );
});

test('the error names the services the runner serves, each one (aws/served-services.ts)', async () => {
  const failure = await new DynamoDBClient({
    endpoint: endpoint?.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
    .send(new ListTablesCommand({}))
    .catch((error: unknown) => error);
  expect(failure).toMatchObject({
    message: expect.stringContaining(
      "(it serves DynamoDB, DynamoDB Streams, SSM Parameter Store, Secrets Manager, SQS, SNS, EventBridge, Kinesis Data Streams, Step Functions, Lambda's Invoke API and S3)",
    ),
  });
});

test('a request naming another host (a page on a rebound name) is 403, logged as no call, read to its end', async () => {
  // Loopback hosts alone, as every server of the runner (issue 41, item 8); the refusal is sent once the body is
  // read, so that the client reads it (RFC 9112 section 9.6; rawExchange fails on a reset).
  const before = log.length;
  const request = Buffer.concat([
    Buffer.from('POST / HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 1048576\r\nConnection: close\r\n\r\n'),
    Buffer.alloc(1024 * 1024, 'x'),
  ]);
  const answer = await rawExchange(endpoint?.url ?? '', request);
  expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
  expect(answer).toContain('evil.example');
  expect(log.slice(before)).toEqual([]);
});
