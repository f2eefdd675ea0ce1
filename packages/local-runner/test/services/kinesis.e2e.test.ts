// Kinesis Data Streams of a CDK app served by the runner's start command (fixtures/kinesis-app.ts), as its functions
// and the user's SDK reach it: the template's streams served by name ("AWS::Kinesis::Stream", their shards, an
// ON_DEMAND stream's generated name), listed in the banner; a TypeScript function writing with the SDK v3 client's
// default (HTTP/2) request handler and a Python one with boto3 (HTTP/1.1), each finding the stream through
// AWS_ENDPOINT_URL_KINESIS ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html); the records read back with GetRecords
// ("GetRecords", Amazon Kinesis Data Streams API Reference,
// https://docs.aws.amazon.com/kinesis/latest/APIReference/API_GetRecords.html), also after a restart on the same
// data folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { synthesizeKinesisApp } from '../fixtures/kinesis-app.ts';
import { type Launched, launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-kinesis/package.json'))),
  '../..',
);

let app = '';
let folder = '';
let runner: Launched;
let banner = '';
let kinesis: KinesisClient;
let lambda: LambdaClient;

/** Starts the runner on the data folder; the clients on the endpoints its banner prints. */
const start = async () => {
  runner = launch(join(folder, 'data'), { args: ['--app', app, '--runtime-sdk', installedPackages], cwd: folder });
  banner = await launchedUntil(runner, /Lambda: http:\/\/127\.0\.0\.1:\d+/);
  const endpoint = (service: string) => new RegExp(`\\n${service}: (http://127\\.0\\.0\\.1:\\d+)`).exec(banner)?.[1];
  const client = { region: localAws.region, credentials: localAws.credentials };
  kinesis = new KinesisClient({ ...client, endpoint: endpoint('Kinesis') });
  lambda = new LambdaClient({ ...client, endpoint: endpoint('Lambda') });
};
const stop = async () => {
  kinesis?.destroy();
  lambda?.destroy();
  await stopStarted();
};

beforeAll(async () => {
  app = synthesizeKinesisApp();
  folder = mkdtempSync(join(tmpdir(), 'local-runner-kinesis-e2e-'));
  await start();
}, 120_000);
afterAll(async () => {
  await stop();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dirname(app), { recursive: true, force: true });
});

const invoke = async (id: string, payload: unknown) => {
  const answer = await lambda.send(
    new InvokeCommand({
      FunctionName: generatedFunctionName('Streams', id),
      Payload: Buffer.from(JSON.stringify(payload)),
    }),
  );
  return { error: answer.FunctionError, result: JSON.parse(Buffer.from(answer.Payload ?? []).toString()) };
};

/** Every record of the stream `StreamName`, shard by shard, as text. */
const everyRecord = async (StreamName: string, shards: number) => {
  const words: string[] = [];
  for (let index = 0; index < shards; index += 1) {
    const { ShardIterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName,
        ShardId: `shardId-${String(index).padStart(12, '0')}`,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator }));
    words.push(...Records.map((record) => Buffer.from(record.Data ?? []).toString()));
  }
  return words.sort();
};

/** The ON_DEMAND stream's generated name, as the banner gives it. */
const flowName = () => /stream (\S+) \(Streams\/Flow\)/.exec(banner)?.[1] ?? '';

test('the banner lists each stream with its shards and ARN', () => {
  expect(banner).toMatch(/\nKinesis: http:\/\/127\.0\.0\.1:\d+ \(HTTP\/1\.1 and HTTP\/2; the runner's credentials/);
  expect(banner).toContain(
    `  stream orders (Streams/Orders): 2 shards, arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/orders`,
  );
  expect(flowName()).toMatch(/^Streams-Flow-[A-Za-z0-9]{12}$/);
  expect(banner).toContain(`(Streams/Flow): 4 shards, arn:aws:kinesis:`);
});

test('a TypeScript function writes with the SDK v3 default client, over HTTP/2', async () => {
  const { error, result } = await invoke('Writer', { words: ['fern', 'ivy', 'moss', 'sage'] });
  expect(error).toBeUndefined();
  expect(result.protocol).toBe('h2');
  expect(result.records).toHaveLength(4);
  expect(await everyRecord('orders', 2)).toEqual(['fern', 'ivy', 'moss', 'sage']);
}, 60_000);

test('a Python function writes with boto3 to the stream its Arn names', async () => {
  const { error, result } = await invoke('PythonWriter', { data: 'from python', key: 'py' });
  expect(error).toBeUndefined();
  expect(result).toEqual({
    ShardId: expect.stringMatching(/^shardId-00000000000[0-3]$/),
    SequenceNumber: expect.any(String),
  });
  expect(await everyRecord(flowName(), 4)).toEqual(['from python']);
}, 60_000);

test('the records are there after a restart on the same data folder', async () => {
  await stop();
  await start();
  expect(await everyRecord('orders', 2)).toEqual(['fern', 'ivy', 'moss', 'sage']);
  expect(await everyRecord(flowName(), 4)).toEqual(['from python']);
}, 120_000);
