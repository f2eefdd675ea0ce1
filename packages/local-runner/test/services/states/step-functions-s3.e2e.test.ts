// A Map over S3 items, on the whole runner serving a CDK app (fixtures/s3-map-app.ts) whose Distributed Maps read a
// bucket of the local S3 that the test fills with the SDK: a CSV file in batches ("ItemReader (Map)",
// https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemreader.html: each record an object of the
// header's names, each field a string, a quoted field holding the delimiter; "ItemBatcher (Map)",
// https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itembatcher.html: `{BatchInput, Items}`), the
// objects under a prefix (each item `{Etag, Key, LastModified, Size, StorageClass}`, LastModified in seconds, as that
// page's example shows) at most MaxItems, a JSON file, a JSON Lines file in JSONata, and the JSON Lines objects
// under a prefix read whole (LOAD_AND_FLATTEN, "Processing nested data sets" on the same page); the results written as
// "ResultWriter (Map)" says (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultwriter.html: the
// Map's output `{MapRunArn, ResultWriterDetails: {Bucket, Key}}`, `<Prefix>/<map run id>/manifest.json` listing
// `SUCCEEDED_0.json` and `FAILED_0.json`); the history's MapRunStarted and MapRunSucceeded ("HistoryEvent",
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html), DescribeMapRun and
// ListMapRuns (https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeMapRun.html); and the AWS
// SDK integration for S3 with its error named `S3.NoSuchKeyException` ("Learning to use AWS service SDK integrations
// in Step Functions", https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  GetExecutionHistoryCommand,
  ListMapRunsCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import { s3MapApp, synthesizeS3MapApp } from '../../fixtures/s3-map-app.ts';
import { localClient } from '../../helpers/local-clients.ts';
import { s3Client } from '../../helpers/s3-services.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-sfn/package.json'))),
  '../..',
);

const Bucket = s3MapApp.bucket;
const objects: Record<string, string> = {
  'prices/plants.csv': 'name;price\nfern;4.5\n"palm; tall";12\nivy;3\n',
  'inbox/a.txt': 'first',
  'inbox/b.txt': 'second!',
  'inbox/c.txt': 'third',
  'plants/catalog.json': JSON.stringify([{ name: 'fern' }, { name: 'moss' }]),
  'plants/names.jsonl': '{"name":"fern"}\n{"name":"weed"}\n{"name":"moss"}\n',
  'rows/1.jsonl': '{"n":1}\n{"n":2}\n',
  'rows/2.jsonl': '{"n":3}\n',
};

const runner = servedBeforeAll(synthesizeS3MapApp, { runtimeSdk: installedPackages });
let sfn: SFNClient;
let s3: S3Client;
const eTags: Record<string, string | undefined> = {};

beforeAll(async () => {
  sfn = localClient(SFNClient, runner.api.serviceUrls.states);
  s3 = s3Client(runner.api.serviceUrls.s3);
  for (const [Key, Body] of Object.entries(objects))
    eTags[Key] = (await s3.send(new PutObjectCommand({ Bucket, Key, Body }))).ETag;
}, 60_000);
afterAll(() => {
  sfn?.destroy();
  s3?.destroy();
});

/** Once the log says that `execution` ended (names here are letters and dashes alone). */
const ended = (execution: string) => runner.log.seen(new RegExp(` ${execution}: execution (?!started)`));

/** Starts an execution of `machine` named `name` and answers DescribeExecution once it has ended. */
const run = async (machine: string, name: string, input: unknown = {}) => {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: stateMachineArn(machine), name, input: JSON.stringify(input) }),
  );
  await ended(name);
  return sfn.send(new DescribeExecutionCommand({ executionArn }));
};

const objectText = async (Key: string) =>
  (await (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body?.transformToString()) ?? '';
const objectJson = async (Key: string) => JSON.parse(await objectText(Key)) as Record<string, unknown>[];

const mapRunArn = (machine: string, label: string) =>
  expect.stringMatching(new RegExp(`^arn:aws:states:us-east-1:000000000000:mapRun:${machine}/${label}:[0-9a-f-]{36}$`));

test('a CSV file’s records, in batches with their BatchInput, write their results where ResultWriter says', async () => {
  const described = await run(s3MapApp.csvBatches, 'csv-batches', { run: 'r-1' });
  expect(described.status).toBe('SUCCEEDED');
  const output = JSON.parse(described.output ?? '');
  expect(output).toEqual({
    MapRunArn: mapRunArn(s3MapApp.csvBatches, 'PriceBatches'),
    ResultWriterDetails: { Bucket, Key: expect.stringMatching(/^results\/[0-9a-f-]{36}\/manifest\.json$/) },
  });
  const folder = output.ResultWriterDetails.Key.replace(/manifest\.json$/, '');
  const manifest = await objectJson(output.ResultWriterDetails.Key);
  expect(manifest).toEqual({
    DestinationBucket: Bucket,
    MapRunArn: output.MapRunArn,
    ResultFiles: {
      FAILED: [],
      PENDING: [],
      SUCCEEDED: [{ Key: `${folder}SUCCEEDED_0.json`, Size: expect.any(Number) }],
    },
  });
  const succeeded = await objectJson(`${folder}SUCCEEDED_0.json`);
  expect(succeeded.map(({ Input, Output, Status }) => ({ Input, Output, Status }))).toEqual([
    {
      Input: JSON.stringify({
        BatchInput: { run: 'r-1' },
        Items: [
          { name: 'fern', price: '4.5' },
          { name: 'palm; tall', price: '12' },
        ],
      }),
      Output: JSON.stringify({ run: 'r-1', names: ['fern', 'palm; tall'], total: 16.5 }),
      Status: 'SUCCEEDED',
    },
    {
      Input: JSON.stringify({ BatchInput: { run: 'r-1' }, Items: [{ name: 'ivy', price: '3' }] }),
      Output: JSON.stringify({ run: 'r-1', names: ['ivy'], total: 3 }),
      Status: 'SUCCEEDED',
    },
  ]);
  const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: described.executionArn }));
  const types = events.map(({ type }) => type);
  expect(types).toEqual(
    expect.arrayContaining(['MapStateEntered', 'MapRunStarted', 'MapRunSucceeded', 'MapStateExited']),
  );
  expect(types).not.toContain('MapIterationStarted');
  expect(events.find(({ type }) => type === 'MapRunStarted')?.mapRunStartedEventDetails?.mapRunArn).toBe(
    output.MapRunArn,
  );
  // "DescribeMapRun" and "ListMapRuns", AWS Step Functions API Reference.
  const { mapRuns = [] } = await sfn.send(new ListMapRunsCommand({ executionArn: described.executionArn }));
  expect(mapRuns.map(({ mapRunArn }) => mapRunArn)).toEqual([output.MapRunArn]);
  expect(await sfn.send(new DescribeMapRunCommand({ mapRunArn: output.MapRunArn }))).toMatchObject({
    executionArn: described.executionArn,
    status: 'SUCCEEDED',
    itemCounts: { total: 3, succeeded: 3, failed: 0, resultsWritten: 3 },
    executionCounts: { total: 2, succeeded: 2 },
  });
});

test('the objects under a prefix, at most MaxItems, each with `$$.Map.Item`; then a JSON file’s items', async () => {
  const described = await run(s3MapApp.listed, 'listed');
  expect(described.status).toBe('SUCCEEDED');
  const { inbox, catalog } = JSON.parse(described.output ?? '');
  const object = (Key: string, Size: number) => ({
    Etag: eTags[Key],
    Key,
    LastModified: expect.any(Number),
    Size,
    StorageClass: 'STANDARD',
  });
  expect(inbox).toEqual([
    { index: 0, object: object('inbox/a.txt', 5) },
    { index: 1, object: object('inbox/b.txt', 7) },
  ]);
  const modified = (await s3.send(new HeadObjectCommand({ Bucket, Key: 'inbox/a.txt' }))).LastModified;
  expect(inbox[0].object.LastModified).toBe(Math.floor((modified?.getTime() ?? 0) / 1000));
  expect(catalog).toEqual([{ plant: 'fern' }, { plant: 'moss' }]);
});

test('a JSON Lines file read in JSONata, a failed item tolerated and written to FAILED_0.json', async () => {
  const described = await run(s3MapApp.jsonl, 'jsonl-names', { bucket: Bucket });
  expect(described.status).toBe('SUCCEEDED');
  const output = JSON.parse(described.output ?? '');
  expect(output.MapRunArn).toEqual(mapRunArn(s3MapApp.jsonl, 'Names'));
  expect(output.ResultWriterDetails.Key).toMatch(/^named\/[0-9a-f-]{36}\/manifest\.json$/);
  const folder = output.ResultWriterDetails.Key.replace(/manifest\.json$/, '');
  // COMPACT: a child's output alone; a failed child's whole description.
  expect(await objectJson(`${folder}SUCCEEDED_0.json`)).toEqual([{ name: 'FERN' }, { name: 'MOSS' }]);
  const [failed] = await objectJson(`${folder}FAILED_0.json`);
  expect(failed).toMatchObject({ Status: 'FAILED', Error: 'Unsellable', Input: JSON.stringify({ name: 'weed' }) });
});

test('LOAD_AND_FLATTEN: the lines of each JSON Lines object under the prefix are the items', async () => {
  const described = await run(s3MapApp.flattened, 'flattened', { bucket: Bucket });
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
});

test('the AWS SDK integration for S3 puts, gets, copies, heads and deletes; a missing key is S3.NoSuchKeyException', async () => {
  const described = await run(s3MapApp.sdk, 'sdk-objects');
  expect(described.status).toBe('SUCCEEDED');
  const output = JSON.parse(described.output ?? '');
  expect(output.get).toEqual({ body: 'grow slowly', type: 'text/plain' });
  expect(output.copy.CopyObjectResult.ETag).toBe(output.put.ETag);
  expect(output.head).toEqual({ length: 11 });
  expect(output.absent.Error).toBe('S3.NoSuchKeyException');
  expect(await objectText('sdk/copy.txt')).toBe('grow slowly');
  await expect(s3.send(new HeadObjectCommand({ Bucket, Key: 'sdk/note.txt' }))).rejects.toThrow();
});

// Last: it replaces the JSON Lines object the test above reads. AWS reads some compressed objects ("ItemReader (Map)");
// the runner does not decompress, so it fails the read, naming the object, rather than read the bytes as text.
test('a compressed object (its Content-Encoding gzip) fails the read with States.ItemReaderFailed, naming it', async () => {
  await s3.send(
    new PutObjectCommand({ Bucket, Key: 'plants/names.jsonl', Body: 'not really gzip', ContentEncoding: 'gzip' }),
  );
  const described = await run(s3MapApp.jsonl, 'jsonl-compressed', { bucket: Bucket });
  expect(described.status).toBe('FAILED');
  expect(described.error).toBe('States.ItemReaderFailed');
  expect(described.cause).toContain('plants/names.jsonl is compressed');
});
