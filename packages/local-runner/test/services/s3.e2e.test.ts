// The local S3 in the runner, as an app's functions reach it: the template's buckets served by name ("AWS::S3::Bucket"
// BucketName, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-s3-bucket.html; a
// bucket named not by the template under the name CloudFormation generates, which its Ref gives the functions), a
// TypeScript function (the SDK for JavaScript v3) and a Python one (boto3) putting, getting and listing through
// AWS_ENDPOINT_URL_S3 ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html), objects kept in the data folder; the
// template's versioning and CORS rules applied; and bytes that are no request do not stop the runner.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetBucketCorsCommand, GetBucketVersioningCommand, ListBucketsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { boto3Source } from 'test-support/python-tools';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedBucketName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { s3AppNames, synthesizeS3App } from '../fixtures/s3-app.ts';
import { s3Client } from '../helpers/s3-services.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-s3/package.json'))), '../..');
let scratch = '';

let dataDir = '';
let assembly = '';
let runner: Runner | undefined;
let lambda: LambdaClient;
const log: string[] = [];
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 's3-e2e-'));
  assembly = synthesizeS3App();
  const template = JSON.parse(readFileSync(join(assembly, `${s3AppNames.stack}.template.json`), 'utf8')) as {
    Resources: Record<string, { Type: string }>;
  };
  const unnamed = Object.keys(template.Resources).find((id) => id.startsWith(s3AppNames.unnamed)) ?? '';
  scratch = generatedBucketName(s3AppNames.stack, unnamed);
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir,
    maxWorkers: 1,
    runtimeSdk: installedPackages,
    log: (line) => log.push(line),
    functionLog: (id, line) => log.push(`${id}: ${line}`),
  });
  lambda = new LambdaClient({
    region: localAws.region,
    credentials: localAws.credentials,
    endpoint: runner.lambdaEndpoint,
  });
}, 120_000);
afterAll(async () => {
  lambda?.destroy();
  await runner?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (assembly) rmSync(dirname(assembly), { recursive: true, force: true });
}, 60_000);

const invoke = async (functionName: string, event: object) => {
  const output = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify(event) }));
  const payload = JSON.parse(Buffer.from(output.Payload ?? []).toString()) as unknown;
  // The log says why when the function failed.
  expect({ error: output.FunctionError, log: output.FunctionError ? log : [] }).toEqual({ error: undefined, log: [] });
  return payload;
};

test("the template's buckets are served by name, the unnamed one by CloudFormation's generated name", async () => {
  const client = s3Client(runner?.serviceUrls.s3 ?? '');
  try {
    const { Buckets } = await client.send(new ListBucketsCommand({}));
    expect(Buckets?.map(({ Name }) => Name).sort()).toEqual(['files', scratch].sort());
    expect(scratch).toMatch(/^files-scratch[0-9a-f]{8}-[a-z0-9]{12}$/);
    expect((await client.send(new GetBucketVersioningCommand({ Bucket: 'files' }))).Status).toBe('Enabled');
    const cors = await client.send(new GetBucketCorsCommand({ Bucket: 'files' }));
    expect(cors.CORSRules).toEqual([
      expect.objectContaining({ AllowedOrigins: ['http://localhost:5173'], AllowedMethods: ['PUT', 'GET'] }),
    ]);
  } finally {
    client.destroy();
  }
  expect(runner?.endpointVariables.AWS_ENDPOINT_URL_S3).toBe(runner?.serviceUrls.s3);
});

test('a TypeScript function puts, gets and lists through AWS_ENDPOINT_URL_S3 (a stream too); kept in the data folder', async () => {
  expect(
    await invoke(s3AppNames.typescript, {
      bucket: 'SCRATCH_BUCKET',
      key: 'ts/one.txt',
      text: 'from typescript',
      stream: true,
    }),
  ).toEqual({ bucket: scratch, text: 'from typescript', keys: ['ts/one.txt'] });
  expect(
    await invoke(s3AppNames.typescript, { bucket: 'FILES_BUCKET', key: 'ts/two.txt', text: 'whole body' }),
  ).toEqual({ bucket: 'files', text: 'whole body', keys: ['ts/two.txt'] });
  expect(readdirSync(join(dataDir, 'services', 's3', scratch, 'keys'))).toHaveLength(1);
});

const boto3 = boto3Source() === 'machine';
if (!boto3) console.warn("Skipping the boto3 writer: this machine's python3 has no boto3.");

(boto3 ? test : test.skip)('a Python function (boto3) does the same', async () => {
  expect(await invoke(s3AppNames.python, { bucket: 'SCRATCH_BUCKET', key: 'py/one.txt', text: 'from python' })).toEqual(
    {
      bucket: scratch,
      text: 'from python',
      keys: ['py/one.txt', 'ts/one.txt'],
    },
  );
});

test('bytes that are no HTTP request are answered 400, and the runner serves on', async () => {
  const { port } = new URL(runner?.serviceUrls.s3 ?? '');
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.end('PUT /files/x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
  });
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  const client = s3Client(runner?.serviceUrls.s3 ?? '');
  try {
    expect((await client.send(new ListBucketsCommand({}))).Buckets).toHaveLength(2);
  } finally {
    client.destroy();
  }
});
