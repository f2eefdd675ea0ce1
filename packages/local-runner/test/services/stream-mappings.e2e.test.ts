// Functions fed by Kinesis streams and a DynamoDB stream through event source mappings, served by the runner as Lambda
// runs them ("Using Lambda with Kinesis Data Streams", https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html;
// "Using Lambda with DynamoDB", https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html): a TypeScript function and
// a Python function of our fixture app (fixtures/stream-mappings-app.ts), records put with the AWS SDK v3 to the local
// Kinesis and items written to the local DynamoDB, which the runner's poller reads over each stream's own API. Each
// test waits for facts (the functions' printed events, the runner's log lines), never for time.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { functionArn, generatedFunctionName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { mappedStreams, synthesizeStreamMappingsApp } from '../fixtures/stream-mappings-app.ts';

interface KinesisRecord {
  kinesis: { sequenceNumber: string; data: string; partitionKey: string };
  eventSourceARN: string;
  eventID: string;
}

interface DynamoRecord {
  eventName: string;
  eventSource: string;
  eventSourceARN: string;
  dynamodb: { Keys: Record<string, { S?: string }>; NewImage?: unknown; StreamViewType: string };
}

/** The functions' names as Lambda knows them (the fixture gives no FunctionName): what the log says. */
const consumer = generatedFunctionName('StreamMappings', 'Consumer');
const reporter = generatedFunctionName('StreamMappings', 'Reporter');
const streamArn = (name: string) =>
  `arn:${localAws.partition}:kinesis:${localAws.region}:${localAws.accountId}:stream/${name}`;

let dataDir: string | undefined;
let runner: Runner | undefined;
let kinesis: KinesisClient;
let sqs: SQSClient;
let dynamodb: DynamoDBClient;
const lines: string[] = [];
const said = new EventEmitter();
const say = (line: string) => {
  lines.push(line);
  said.emit('line');
};

/** Resolves with what `found` finds in the lines said so far, once it finds something. */
const until = <T>(found: () => T | undefined) =>
  new Promise<T>((resolve) => {
    const look = () => {
      const value = found();
      if (value === undefined) return;
      said.off('line', look);
      resolve(value);
    };
    said.on('line', look);
    look();
  });

/** The first line said that includes `text`. */
const line = (text: string) => until(() => lines.find((l) => l.includes(text)));

/** The batches the functions printed (`BATCH <event>`) from the stream `name`, in the order they began. */
const batchesOf = (name: string) =>
  lines
    .filter((l) => l.includes('BATCH '))
    .map((l) => JSON.parse(l.slice(l.indexOf('BATCH ') + 6)) as { Records: KinesisRecord[] })
    .map(({ Records }) => Records)
    .filter((records) => records[0]?.eventSourceARN === streamArn(name));

/** Resolves with the batches of `name` once there are `count`. */
const batches = (name: string, count: number) =>
  until(() => {
    const all = batchesOf(name);
    return all.length >= count ? all : undefined;
  });

/** A record's data, decoded. */
const dataOf = ({ kinesis: { data } }: KinesisRecord): unknown =>
  JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
const numbersOf = (records: KinesisRecord[]) => records.map((record) => (dataOf(record) as { n?: number }).n);

/** Puts `data` (each JSON, or text) in one PutRecords call; their sequence numbers, in order. */
const put = async (name: string, data: unknown[]) => {
  const { Records = [] } = await kinesis.send(
    new PutRecordsCommand({
      StreamName: name,
      Records: data.map((value) => ({
        PartitionKey: 'one',
        Data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
      })),
    }),
  );
  return Records.map(({ SequenceNumber }) => SequenceNumber as string);
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'stream-mappings-e2e-'));
  const assembly = await synthesizeStreamMappingsApp();
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir,
    // One execution environment per function: each remembers the records it has seen (fails "once").
    maxWorkers: 1,
    log: say,
    functionLog: (id, text) => say(`${id}: ${text}`),
  });
  const client = { region: localAws.region, credentials: localAws.credentials };
  kinesis = new KinesisClient({ ...client, endpoint: runner.serviceUrls.kinesis });
  sqs = new SQSClient({ ...client, endpoint: runner.serviceUrls.sqs });
  dynamodb = new DynamoDBClient({ ...client, endpoint: runner.databaseEndpoint });
}, 120_000);
afterAll(async () => {
  kinesis?.destroy();
  sqs?.destroy();
  dynamodb?.destroy();
  await runner?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

// "Example Kinesis record event" (with-kinesis.html), and "Retain discarded batch records for a Kinesis Data Streams
// event source in Lambda" (https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html):
// BisectBatchOnFunctionError splits a failed batch in two and retries each half.
test('a stream handler that fails once: its batch bisected, each half sent in order', async () => {
  const sequenceNumbers = await put(mappedStreams.bisect, [
    { n: 1 },
    { n: 2 },
    { n: 3, action: 'throw-once' },
    { n: 4 },
  ]);
  const all = await batches(mappedStreams.bisect, 3);
  expect(all.map(numbersOf)).toEqual([
    [1, 2, 3, 4],
    [1, 2],
    [3, 4],
  ]);
  expect(all[0]?.[0]).toEqual({
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: 'one',
      sequenceNumber: sequenceNumbers[0],
      data: Buffer.from('{"n":1}').toString('base64'),
      approximateArrivalTimestamp: expect.any(Number),
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000000:${sequenceNumbers[0]}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: expect.stringMatching(/^arn:aws:iam::\d{12}:role\//),
    awsRegion: localAws.region,
    eventSourceARN: streamArn(mappedStreams.bisect),
  });
  const label = `Kinesis ${mappedStreams.bisect} -> ${consumer}: batch of`;
  await line(`${label} 4 from shardId-000000000000: error (Error: a record asked this batch to fail): bisected`);
  await until(() =>
    lines.filter((l) => l.includes(`${label} 2 from shardId-000000000000: ok`)).length === 2 ? true : undefined,
  );
});

// "Retain discarded batch records for a Kinesis Data Streams event source in Lambda": past MaximumRetryAttempts the
// records are discarded and the destination gets the invocation record ("Example invocation record"): the shard and
// the sequence range, not the records.
test('a record failing always: isolated by bisection, retried once, its invocation record sent to the queue', async () => {
  const sequenceNumbers = await put(mappedStreams.bisect, [{ n: 5 }, { n: 6 }, { n: 7, action: 'poison' }, { n: 8 }]);
  const before = 3;
  const all = await batches(mappedStreams.bisect, before + 6);
  expect(all.slice(before).map(numbersOf)).toEqual([[5, 6, 7, 8], [5, 6], [7, 8], [7], [7], [8]]);
  await line(`1 record ${sequenceNumbers[2]} to ${sequenceNumbers[2]} discarded (RetryAttemptsExhausted)`);
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: mappedStreams.discarded }));
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  expect(Messages.map(({ Body }) => JSON.parse(Body ?? ''))).toEqual([
    {
      requestContext: {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        functionArn: functionArn(consumer),
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 2,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      KinesisBatchInfo: {
        shardId: 'shardId-000000000000',
        startSequenceNumber: sequenceNumbers[2],
        endSequenceNumber: sequenceNumbers[2],
        approximateArrivalOfFirstRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        approximateArrivalOfLastRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        batchSize: 1,
        streamArn: streamArn(mappedStreams.bisect),
      },
    },
  ]);
});

// "Configuring partial batch response with Kinesis Data Streams and Lambda"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html): Lambda checkpoints at
// the lowest sequence number in batchItemFailures and retries the records from it.
test('ReportBatchItemFailures on a stream (Python): resumed from the record reported, the ones before it done', async () => {
  const sequenceNumbers = await put(mappedStreams.partial, [{ n: 1 }, { n: 2, action: 'fail-once' }, { n: 3 }]);
  const all = await batches(mappedStreams.partial, 2);
  expect(all.map(numbersOf)).toEqual([
    [1, 2, 3],
    [2, 3],
  ]);
  expect(all[1]?.[0]?.kinesis.sequenceNumber).toBe(sequenceNumbers[1]);
  await line(
    `Kinesis ${mappedStreams.partial} -> ${reporter}: batch of 3 from shardId-000000000000: failed from record 2: retried`,
  );
  await line(`Kinesis ${mappedStreams.partial} -> ${reporter}: batch of 2 from shardId-000000000000: ok`);
});

// "Using event filtering with a Kinesis event source" (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis-filtering.html):
// the pattern's `data` is matched against the record's data, decoded and parsed as JSON; a record it does not match
// (or whose data is not JSON) is not sent. On a Kinesis stream of changes: DynamoDB Streams was not on main yet.
test('an update filtered out (Python, FilterCriteria on data): the insertions alone are sent', async () => {
  await put(mappedStreams.filtered, [
    { change: 'insert', n: 1 },
    { change: 'update', n: 1 },
    { change: 'insert', n: 2 },
    'change insert, as plain text',
  ]);
  await line(`Kinesis ${mappedStreams.filtered} -> ${reporter}: 2 filtered out`);
  const [records = []] = await batches(mappedStreams.filtered, 1);
  expect(records.map(dataOf)).toEqual([
    { change: 'insert', n: 1 },
    { change: 'insert', n: 2 },
  ]);
  await line(`Kinesis ${mappedStreams.filtered} -> ${reporter}: batch of 2 from shardId-000000000000: ok`);
});

test("the banner's lines: each stream mapping, its stream and its function", () => {
  expect(runner?.streamMappings()).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^StreamMappings/\\w+: Kinesis ${mappedStreams.bisect} -> ${consumer}$`)),
      expect.stringMatching(new RegExp(`^StreamMappings/\\w+: Kinesis ${mappedStreams.partial} -> ${reporter}$`)),
    ]),
  );
});

// "Using event filtering with a DynamoDB event source" (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb-filtering.html):
// a pattern on the record's eventName; a record it does not match is not sent, and the mapping goes past it.
test('an update filtered out (Python, a DynamoDB stream): the insertions alone reach the function', async () => {
  const TableName = mappedStreams.orders;
  await dynamodb.send(new PutItemCommand({ TableName, Item: { id: { S: 'o-1' }, status: { S: 'new' } } }));
  await dynamodb.send(
    new UpdateItemCommand({
      TableName,
      Key: { id: { S: 'o-1' } },
      UpdateExpression: 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': { S: 'shipped' } },
    }),
  );
  await dynamodb.send(new PutItemCommand({ TableName, Item: { id: { S: 'o-2' }, status: { S: 'new' } } }));
  const label = `DynamoDB ${TableName} stream -> ${reporter}`;
  await line(`${label}: 1 filtered out`);
  const inserted = await until(() => {
    const records = lines
      .filter((l) => l.includes('BATCH ') && l.includes('"aws:dynamodb"'))
      .flatMap((l) => (JSON.parse(l.slice(l.indexOf('BATCH ') + 6)) as { Records: DynamoRecord[] }).Records);
    return records.length >= 2 ? records : undefined;
  });
  expect(inserted.map(({ eventName, dynamodb: { Keys } }) => [eventName, Keys.id?.S])).toEqual([
    ['INSERT', 'o-1'],
    ['INSERT', 'o-2'],
  ]);
  expect(inserted[0]).toMatchObject({
    eventSource: 'aws:dynamodb',
    eventSourceARN: expect.stringMatching(new RegExp(`:table/${TableName}/stream/`)),
    dynamodb: { NewImage: { id: { S: 'o-1' }, status: { S: 'new' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  });
});

// A TableV2 (AWS::DynamoDB::GlobalTable, "AWS::DynamoDB::GlobalTable", CloudFormation template reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-dynamodb-globaltable.html) is
// served as the table of the stack's region: its stream feeds the function through its mapping (on its StreamArn),
// and its global secondary index answers a Query.
test('a TableV2: its stream reaches the function, its index answers a Query', async () => {
  const TableName = mappedStreams.catalog;
  await dynamodb.send(new PutItemCommand({ TableName, Item: { id: { S: 'c-1' }, kind: { S: 'fern' } } }));
  await dynamodb.send(new PutItemCommand({ TableName, Item: { id: { S: 'c-2' }, kind: { S: 'palm' } } }));
  const { Items } = await dynamodb.send(
    new QueryCommand({
      TableName,
      IndexName: mappedStreams.catalogIndex,
      KeyConditionExpression: '#k = :k',
      ExpressionAttributeNames: { '#k': 'kind' },
      ExpressionAttributeValues: { ':k': { S: 'fern' } },
    }),
  );
  expect(Items).toEqual([{ id: { S: 'c-1' }, kind: { S: 'fern' } }]);
  const records = await until(() => {
    const all = lines
      .filter((l) => l.includes('BATCH ') && l.includes(`:table/${TableName}/stream/`))
      .flatMap((l) => (JSON.parse(l.slice(l.indexOf('BATCH ') + 6)) as { Records: DynamoRecord[] }).Records);
    return all.length >= 2 ? all : undefined;
  });
  expect(records.map(({ eventName, dynamodb: { Keys } }) => [eventName, Keys.id?.S])).toEqual([
    ['INSERT', 'c-1'],
    ['INSERT', 'c-2'],
  ]);
  expect(records[0]?.dynamodb.StreamViewType).toBe('NEW_IMAGE');
});
