// DynamoDB Streams on the local database (its own process, a data folder), read with the SDK v3's DynamoDB Streams
// client as a stream reader on AWS would. What AWS does, from:
// - "Change data capture for DynamoDB Streams" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html):
//   a record per item change, in the order of the changes; the four StreamViewTypes; "If you perform a PutItem or
//   UpdateItem operation that does not change any data in an item, DynamoDB Streams does not write a stream record";
//   a disabled stream stays readable for 24 hours, and enabling it again makes a new stream with a new ARN.
// - The DynamoDB Streams API Reference (https://docs.aws.amazon.com/amazondynamodbstreams/latest/APIReference/Welcome.html):
//   ListStreams, DescribeStream, GetShardIterator (TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER),
//   GetRecords and its Record shape; a closed shard read to its end gives no NextShardIterator.
// - "TransactWriteItems", "TransactGetItems" and "UpdateTable" in the DynamoDB API Reference
//   (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html,
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html,
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type ShardIteratorType,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { launch, stopStarted } from 'test-support/launched';
import { boto3Source } from 'test-support/python-tools';
import type { Table } from '../../src/app/api.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { localTableStreamArn } from '../../src/app/return-values.ts';
import { type Database, startDatabase } from '../../src/database/database.ts';

const keyed = {
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' as const }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' as const }],
};
const templateTable = (tableName: string, view?: string): Table => ({
  id: tableName,
  tableName,
  properties: { ...keyed, ...(view && { StreamSpecification: { StreamViewType: view } }) },
});
/** What the runner logs of the database (a restart would say `database failed`). */
const said: string[] = [];
const quiet = (line: string) => void said.push(line);

let folder = '';
let database: Database | undefined;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;

const connect = (endpoint: string) => {
  const config = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
  client = new DynamoDBClient(config);
  streams = new DynamoDBStreamsClient(config);
};
const disconnect = () => {
  client?.destroy();
  streams?.destroy();
};

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'local-runner-streams-'));
  database = await startDatabase([templateTable('plants', 'NEW_AND_OLD_IMAGES')], join(folder, 'data'), quiet);
  connect(database.endpoint);
}, 60_000);
afterAll(async () => {
  disconnect();
  await database?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A new table through the API, its stream of `view` enabled; its stream's ARN. */
const tableWithStream = async (TableName: string, view: string) => {
  const { TableDescription } = await client.send(
    new CreateTableCommand({
      TableName,
      ...keyed,
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: view as 'KEYS_ONLY' },
    }),
  );
  // A table is CREATING a moment after CreateTable, as on AWS: used once DescribeTable says it is ACTIVE.
  await waitUntilTableExists({ client, minDelay: 1, maxWaitTime: 30 }, { TableName });
  return TableDescription?.LatestStreamArn as string;
};

const shardOf = async (StreamArn: string) => {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
  return StreamDescription?.Shards?.[0]?.ShardId as string;
};

const iteratorOf = async (StreamArn: string, ShardIteratorType: ShardIteratorType, SequenceNumber?: string) => {
  const ShardId = await shardOf(StreamArn);
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn, ShardId, ShardIteratorType, ...(SequenceNumber && { SequenceNumber }) }),
  );
  return ShardIterator as string;
};

/** Every record from `iterator` on, page by page, until a page is empty; and whether the shard gave a next iterator. */
const readFrom = async (iterator: string) => {
  const records: StreamRecord[] = [];
  let next: string | undefined = iterator;
  while (next) {
    const page: GetRecordsCommandOutput = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: 2 }));
    records.push(...(page.Records ?? []));
    next = page.NextShardIterator;
    if ((page.Records ?? []).length === 0) return { records, open: next !== undefined };
  }
  return { records, open: false };
};
const recordsOf = async (arn: string) => (await readFrom(await iteratorOf(arn, 'TRIM_HORIZON'))).records;

const summary = (records: StreamRecord[]) =>
  records.map(({ eventName, dynamodb }) => ({
    eventName,
    Keys: dynamodb?.Keys,
    NewImage: dynamodb?.NewImage,
    OldImage: dynamodb?.OldImage,
  }));

const S = (value: string) => ({ S: value });

test("a template table's StreamSpecification is kept: DescribeTable names its stream, the ARN Fn::GetAtt StreamArn gives", async () => {
  const { Table: table } = await client.send(new DescribeTableCommand({ TableName: 'plants' }));
  expect(table).toMatchObject({
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    LatestStreamArn: localTableStreamArn('plants'),
    LatestStreamLabel: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
  });
  const { Streams } = await streams.send(new ListStreamsCommand({ TableName: 'plants' }));
  expect(Streams).toEqual([
    { StreamArn: localTableStreamArn('plants'), TableName: 'plants', StreamLabel: table?.LatestStreamLabel },
  ]);
});

test('PutItem, UpdateItem and DeleteItem each write a record of AWS shape, in order; a write that changes nothing, none', async () => {
  const arn = await tableWithStream('changes', 'NEW_AND_OLD_IMAGES');
  const put = { TableName: 'changes', Item: { id: S('a'), height: { N: '1' }, tags: { SS: ['x', 'y'] } } };
  await client.send(new PutItemCommand(put));
  const { tags, height, id } = put.Item;
  await client.send(new PutItemCommand({ ...put, Item: { tags, height, id } })); // the same item
  const update = { TableName: 'changes', Key: { id: S('a') }, UpdateExpression: 'SET height = :s' };
  await client.send(new UpdateItemCommand({ ...update, ExpressionAttributeValues: { ':s': { N: '2' } } }));
  await client.send(new UpdateItemCommand({ ...update, ExpressionAttributeValues: { ':s': { N: '2' } } })); // no change
  await client.send(new DeleteItemCommand({ TableName: 'changes', Key: { id: S('a') } }));
  await client.send(new DeleteItemCommand({ TableName: 'changes', Key: { id: S('a') } })); // nothing to delete

  const records = await recordsOf(arn);
  const first = { id: S('a'), height: { N: '1' }, tags: { SS: ['x', 'y'] } };
  const second = { ...first, height: { N: '2' } };
  expect(summary(records)).toEqual([
    { eventName: 'INSERT', Keys: { id: S('a') }, NewImage: first, OldImage: undefined },
    { eventName: 'MODIFY', Keys: { id: S('a') }, NewImage: second, OldImage: first },
    { eventName: 'REMOVE', Keys: { id: S('a') }, NewImage: undefined, OldImage: second },
  ]);
  for (const record of records)
    expect(record).toEqual({
      eventID: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventName: expect.any(String),
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: expect.objectContaining({
        ApproximateCreationDateTime: expect.any(Date),
        SequenceNumber: expect.stringMatching(/^\d{21}$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      }),
    });
  const numbers = records.map(({ dynamodb }) => BigInt(dynamodb?.SequenceNumber ?? 0));
  expect(numbers).toEqual([...numbers].sort((a, b) => (a < b ? -1 : 1)));
  expect(new Set(records.map(({ eventID }) => eventID)).size).toBe(3);
});

test.each([
  ['KEYS_ONLY', false, false],
  ['NEW_IMAGE', true, false],
  ['OLD_IMAGE', false, true],
  ['NEW_AND_OLD_IMAGES', true, true],
])('a %s stream keeps the new image: %s, the old: %s', async (view, withNew, withOld) => {
  const name = `view-${view.toLowerCase().replaceAll('_', '-')}`;
  const arn = await tableWithStream(name, view);
  await client.send(new PutItemCommand({ TableName: name, Item: { id: S('k'), v: S('1') } }));
  await client.send(new PutItemCommand({ TableName: name, Item: { id: S('k'), v: S('2') } }));
  const [, modify] = await recordsOf(arn);
  expect(modify?.dynamodb).toMatchObject({ Keys: { id: S('k') }, StreamViewType: view });
  expect(modify?.dynamodb?.NewImage).toEqual(withNew ? { id: S('k'), v: S('2') } : undefined);
  expect(modify?.dynamodb?.OldImage).toEqual(withOld ? { id: S('k'), v: S('1') } : undefined);
});

test('a BatchWriteItem writes one record per item it changes', async () => {
  const arn = await tableWithStream('batch', 'KEYS_ONLY');
  await client.send(new PutItemCommand({ TableName: 'batch', Item: { id: S('old') } }));
  await client.send(
    new BatchWriteItemCommand({
      RequestItems: {
        batch: [
          { PutRequest: { Item: { id: S('b1') } } },
          { PutRequest: { Item: { id: S('b2') } } },
          { DeleteRequest: { Key: { id: S('old') } } },
          { DeleteRequest: { Key: { id: S('never') } } },
        ],
      },
    }),
  );
  const records = (await recordsOf(arn)).slice(1);
  expect(records.map(({ eventName, dynamodb }) => `${eventName} ${dynamodb?.Keys?.id?.S}`).sort()).toEqual([
    'INSERT b1',
    'INSERT b2',
    'REMOVE old',
  ]);
});

describe('a transaction', () => {
  let orders = '';
  let stock = '';
  beforeAll(async () => {
    orders = await tableWithStream('orders', 'NEW_AND_OLD_IMAGES');
    stock = await tableWithStream('stock', 'NEW_AND_OLD_IMAGES');
    await client.send(new PutItemCommand({ TableName: 'stock', Item: { id: S('fern'), count: { N: '3' } } }));
    await client.send(new PutItemCommand({ TableName: 'stock', Item: { id: S('cactus'), count: { N: '0' } } }));
    await client.send(new PutItemCommand({ TableName: 'stock', Item: { id: S('shop'), open: { BOOL: true } } }));
  });
  const order = (id: string, plant: string) =>
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Put: {
            TableName: 'orders',
            Item: { id: S(id), plant: S(plant) },
            ConditionExpression: 'attribute_not_exists(id)',
          },
        },
        {
          Update: {
            TableName: 'stock',
            Key: { id: S(plant) },
            UpdateExpression: 'SET #c = #c - :one',
            ConditionExpression: '#c > :zero',
            ExpressionAttributeNames: { '#c': 'count' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':zero': { N: '0' } },
          },
        },
        {
          ConditionCheck: {
            TableName: 'stock',
            Key: { id: S('shop') },
            ConditionExpression: '#o = :yes',
            ExpressionAttributeNames: { '#o': 'open' },
            ExpressionAttributeValues: { ':yes': { BOOL: true } },
          },
        },
      ],
    });

  test("writes its items' records, one per item changed, in each table's stream", async () => {
    await client.send(order('o1', 'fern'));
    expect(summary(await recordsOf(orders))).toEqual([
      { eventName: 'INSERT', Keys: { id: S('o1') }, NewImage: { id: S('o1'), plant: S('fern') }, OldImage: undefined },
    ]);
    expect(summary((await recordsOf(stock)).slice(3))).toEqual([
      {
        eventName: 'MODIFY',
        Keys: { id: S('fern') },
        NewImage: { id: S('fern'), count: { N: '2' } },
        OldImage: { id: S('fern'), count: { N: '3' } },
      },
    ]);
  });

  test('cancelled (a condition fails) writes no item and no record, and says why per action', async () => {
    const refused = await client.send(order('o2', 'cactus')).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    const { Item } = await client.send(new GetItemCommand({ TableName: 'orders', Key: { id: S('o2') } }));
    expect(Item).toBeUndefined();
    expect(await recordsOf(orders)).toHaveLength(1);
    expect(await recordsOf(stock)).toHaveLength(4);
  });

  test('naming one item twice is refused', async () => {
    const twice = new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: 'orders', Item: { id: S('o3') } } },
        { Delete: { TableName: 'orders', Key: { id: S('o3') } } },
      ],
    });
    await expect(client.send(twice)).rejects.toMatchObject({ name: 'ValidationException' });
  });

  // "TransactWriteItems" ClientRequestToken: the same request with the same token within 10 minutes has the effect of
  // one call; the same token with other parameters is refused with IdempotentParameterMismatchException.
  test('a ClientRequestToken given again: the same request is not written again; another request is refused', async () => {
    const restock = (count: string) =>
      new TransactWriteItemsCommand({
        ClientRequestToken: 'restock-1',
        TransactItems: [{ Put: { TableName: 'stock', Item: { id: S('palm'), count: { N: count } } } }],
      });
    await client.send(restock('5'));
    await client.send(new PutItemCommand({ TableName: 'stock', Item: { id: S('palm'), count: { N: '4' } } }));
    await expect(client.send(restock('5'))).resolves.toBeDefined();
    const { Item } = await client.send(new GetItemCommand({ TableName: 'stock', Key: { id: S('palm') } }));
    expect(Item?.count).toEqual({ N: '4' });
    await expect(client.send(restock('6'))).rejects.toMatchObject({ name: 'IdempotentParameterMismatchException' });
  });
});

// "TransactGetItems", DynamoDB API Reference
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html): up to 100 Gets, each
// item's response in the order asked (a missing item's without an Item), a projection as GetItem's; the same item
// twice is a ValidationException; a table that does not exist, ResourceNotFoundException.
describe('TransactGetItems', () => {
  beforeAll(async () => {
    await client.send(new PutItemCommand({ TableName: 'plants', Item: { id: S('aloe'), water: S('little') } }));
    await client.send(new PutItemCommand({ TableName: 'plants', Item: { id: S('ivy'), water: S('often') } }));
  });
  const get = (id: string, more: object = {}) => ({ Get: { TableName: 'plants', Key: { id: S(id) }, ...more } });

  test("gives each item asked for, in order; a missing item's response has no Item", async () => {
    const { Responses } = await client.send(
      new TransactGetItemsCommand({
        TransactItems: [get('ivy'), get('none'), get('aloe', { ProjectionExpression: 'water' })],
      }),
    );
    expect(Responses).toEqual([{ Item: { id: S('ivy'), water: S('often') } }, {}, { Item: { water: S('little') } }]);
  });

  test.each([
    ['the same item twice', [get('ivy'), get('ivy')], 'ValidationException'],
    ['101 items', Array.from({ length: 101 }, (_, n) => get(`p${n}`)), 'ValidationException'],
    [
      'a table that does not exist',
      [{ Get: { TableName: 'nowhere', Key: { id: S('x') } } }],
      'ResourceNotFoundException',
    ],
  ])('%s: refused', async (_, TransactItems, name) => {
    await expect(client.send(new TransactGetItemsCommand({ TransactItems }))).rejects.toMatchObject({ name });
  });
});

test('a reader of the stream is told when records are appended (onAppend)', async () => {
  const arn = await tableWithStream('told', 'KEYS_ONLY');
  const told: string[] = [];
  const appended = new Promise<void>((resolve) => {
    const stop = database?.onAppend(arn, () => {
      told.push(arn);
      stop?.();
      resolve();
    });
  });
  await client.send(new PutItemCommand({ TableName: 'told', Item: { id: S('first') } }));
  await appended;
  expect(told).toEqual([arn]);
  expect((await recordsOf(arn)).map(({ dynamodb }) => dynamodb?.Keys?.id?.S)).toEqual(['first']);
});

test('a call whose body is JSON but no object is refused (SerializationException), the database process kept', async () => {
  const call = (target: string, body: string) =>
    fetch(database?.endpoint ?? '', {
      method: 'POST',
      headers: {
        'X-Amz-Target': target,
        'Content-Type': 'application/x-amz-json-1.0',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x',
        'X-Amz-Date': '20260101T000000Z',
      },
      body,
    }).then(async (response) => ({
      status: response.status,
      type: ((await response.json()) as { __type: string }).__type,
    }));
  // dynalite alone ended its process on `null` (it reads members of it), and the runner restarted it.
  for (const target of [
    'DynamoDB_20120810.PutItem',
    'DynamoDB_20120810.ListTables',
    'DynamoDBStreams_20120810.GetRecords',
  ])
    for (const body of ['null', '[]', '7'])
      expect(await call(target, body)).toEqual({
        status: 400,
        type: expect.stringMatching(/#SerializationException$/),
      });
  expect(said.filter((line) => line.includes('database failed'))).toEqual([]);
});

test('each iterator type starts where the API Reference says', async () => {
  const arn = await tableWithStream('positions', 'KEYS_ONLY');
  for (const id of ['p1', 'p2', 'p3'])
    await client.send(new PutItemCommand({ TableName: 'positions', Item: { id: S(id) } }));
  const all = await recordsOf(arn);
  const second = all[1]?.dynamodb?.SequenceNumber as string;
  const ids = (records: StreamRecord[]) => records.map(({ dynamodb }) => dynamodb?.Keys?.id?.S);
  const latest = await iteratorOf(arn, 'LATEST');
  expect(ids(all)).toEqual(['p1', 'p2', 'p3']);
  expect(ids((await readFrom(await iteratorOf(arn, 'AT_SEQUENCE_NUMBER', second))).records)).toEqual(['p2', 'p3']);
  expect(ids((await readFrom(await iteratorOf(arn, 'AFTER_SEQUENCE_NUMBER', second))).records)).toEqual(['p3']);
  await client.send(new PutItemCommand({ TableName: 'positions', Item: { id: S('p4') } }));
  expect(ids((await readFrom(latest)).records)).toEqual(['p4']);
  await expect(streams.send(new GetRecordsCommand({ ShardIterator: 'not-an-iterator' }))).rejects.toMatchObject({
    name: 'ValidationException',
  });
  const ShardId = await shardOf(arn);
  // DynamoDB Streams' ShardIteratorType has no AT_TIMESTAMP (Kinesis's has).
  for (const wrong of [
    { ShardIteratorType: 'AT_TIMESTAMP' as ShardIteratorType },
    { ShardIteratorType: 'AT_SEQUENCE_NUMBER' as ShardIteratorType, SequenceNumber: '5' },
  ])
    await expect(
      streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId, ...wrong })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
});

test('a stream disabled stays readable, its shard closed; enabled again, the table gets a new stream', async () => {
  const arn = await tableWithStream('toggled', 'KEYS_ONLY');
  await client.send(new PutItemCommand({ TableName: 'toggled', Item: { id: S('t1') } }));
  await client.send(new UpdateTableCommand({ TableName: 'toggled', StreamSpecification: { StreamEnabled: false } }));
  await client.send(new PutItemCommand({ TableName: 'toggled', Item: { id: S('t2') } }));
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  expect(StreamDescription).toMatchObject({
    StreamStatus: 'DISABLED',
    Shards: [{ SequenceNumberRange: { EndingSequenceNumber: expect.stringMatching(/^\d{21}$/) } }],
  });
  const read = await readFrom(await iteratorOf(arn, 'TRIM_HORIZON'));
  expect(read).toEqual({ records: [expect.objectContaining({ eventName: 'INSERT' })], open: false });

  const { TableDescription } = await client.send(
    new UpdateTableCommand({
      TableName: 'toggled',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  expect(TableDescription?.LatestStreamArn).not.toBe(arn);
  const { Streams } = await streams.send(new ListStreamsCommand({ TableName: 'toggled' }));
  expect(Streams?.map(({ StreamArn }) => StreamArn).sort()).toEqual([arn, TableDescription?.LatestStreamArn].sort());
  // "You can only perform one of the following operations at once".
  const both = new UpdateTableCommand({
    TableName: 'toggled',
    BillingMode: 'PROVISIONED',
    ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    StreamSpecification: { StreamEnabled: false },
  });
  await expect(client.send(both)).rejects.toMatchObject({ name: 'ValidationException' });
});

test('the records are kept in the data folder: a restart reads them, and numbers the next ones after them', async () => {
  const arn = localTableStreamArn('plants');
  await client.send(new PutItemCommand({ TableName: 'plants', Item: { id: S('before') } }));
  const before = await recordsOf(arn);
  disconnect();
  await database?.close();
  database = await startDatabase([templateTable('plants', 'NEW_AND_OLD_IMAGES')], join(folder, 'data'), quiet);
  connect(database.endpoint);
  expect(await recordsOf(arn)).toEqual(before);
  await client.send(new PutItemCommand({ TableName: 'plants', Item: { id: S('after') } }));
  const after = await recordsOf(arn);
  expect(after.slice(0, -1)).toEqual(before);
  expect(BigInt(after.at(-1)?.dynamodb?.SequenceNumber ?? 0)).toBeGreaterThan(
    BigInt(before.at(-1)?.dynamodb?.SequenceNumber ?? 0),
  );
}, 60_000);

test('a table of an earlier run gets the stream its template now asks for', async () => {
  disconnect();
  await database?.close();
  database = await startDatabase(
    [templateTable('plants', 'NEW_AND_OLD_IMAGES'), templateTable('later', undefined)],
    join(folder, 'data'),
    quiet,
  );
  await database.close();
  database = await startDatabase(
    [templateTable('plants', 'KEYS_ONLY'), templateTable('later', 'NEW_IMAGE')],
    join(folder, 'data'),
    quiet,
  );
  connect(database.endpoint);
  const { Table: later } = await client.send(new DescribeTableCommand({ TableName: 'later' }));
  expect(later).toMatchObject({
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    LatestStreamArn: localTableStreamArn('later'),
  });
  const { Table: plants } = await client.send(new DescribeTableCommand({ TableName: 'plants' }));
  expect(plants?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'KEYS_ONLY' });
  const { StreamDescription } = await streams.send(
    new DescribeStreamCommand({ StreamArn: localTableStreamArn('plants') }),
  );
  expect(StreamDescription).toMatchObject({ StreamStatus: 'ENABLED', StreamViewType: 'KEYS_ONLY' });
}, 60_000);

const boto3 = boto3Source();
if (boto3 === undefined)
  console.warn("Skipping the boto3 reader: neither python3 nor the runner's user cache has boto3.");
afterEach(stopStarted);

(boto3 ? test : test.skip)(
  "boto3, with only a function's variables, reads a transaction's records",
  async () => {
    const arn = await tableWithStream('python', 'NEW_IMAGE');
    const program = join(folder, 'reader.py');
    writeFileSync(
      program,
      `import json, boto3
db, streams = boto3.client("dynamodb"), boto3.client("dynamodbstreams")
db.transact_write_items(TransactItems=[
    {"Put": {"TableName": "python", "Item": {"id": {"S": "one"}}}},
    {"Put": {"TableName": "python", "Item": {"id": {"S": "two"}}}},
])
shard = streams.describe_stream(StreamArn="${arn}")["StreamDescription"]["Shards"][0]["ShardId"]
iterator = streams.get_shard_iterator(StreamArn="${arn}", ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
records = streams.get_records(ShardIterator=iterator)["Records"]
print(json.dumps(sorted([r["eventName"] + " " + r["dynamodb"]["NewImage"]["id"]["S"] for r in records])))
`,
    );
    const endpoint = database?.endpoint ?? '';
    const run = launch(['python3', program], {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '',
        ...(typeof boto3 === 'object' && { PYTHONPATH: boto3.folder }),
        AWS_CONFIG_FILE: join(folder, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(folder, 'none'),
        AWS_REGION: localAws.region,
        AWS_DEFAULT_REGION: localAws.region,
        AWS_ACCESS_KEY_ID: localAws.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: localAws.credentials.secretAccessKey,
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoint,
      },
    });
    const status = await run.exited;
    await run.closed;
    expect({ status, output: run.output() }).toEqual({ status: 0, output: expect.stringContaining('INSERT') });
    expect(JSON.parse(run.output().trim().split('\n').at(-1) ?? '')).toEqual(['INSERT one', 'INSERT two']);
  },
  60_000,
);
