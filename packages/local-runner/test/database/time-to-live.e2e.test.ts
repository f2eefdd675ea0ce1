// Time to Live on the local database, and its deletions in the table's stream. What AWS does, from "Using time to
// live (TTL) in DynamoDB" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html): an item whose
// TTL attribute, a Number of epoch seconds, is past is deleted (on AWS "typically within a few days"), but not one
// whose value is more than five years in the past, nor one whose attribute is of another type; "DynamoDB Streams and
// Time to Live" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html): the
// deletion's stream record names the service in its userIdentity (the Streams API's Identity: PrincipalId
// "dynamodb.amazonaws.com", Type "Service"); UpdateTimeToLive and DescribeTimeToLive (DynamoDB API Reference).
import { EventEmitter } from 'node:events';
import {
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Table } from '../../src/app/api.ts';
import { localTableStreamArn } from '../../src/app/return-values.ts';
import { type Database, startDatabase } from '../../src/database/database.ts';

const sessions: Table = {
  id: 'Sessions',
  tableName: 'sessions',
  properties: {
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true },
  },
};

const lines: string[] = [];
const said = new EventEmitter();
const log = (line: string) => {
  lines.push(line);
  said.emit('line');
};
/** Resolves once a line said includes `text`. */
const line = (text: string) =>
  new Promise<void>((resolve) => {
    const look = () => {
      if (!lines.some((l) => l.includes(text))) return;
      said.off('line', look);
      resolve();
    };
    said.on('line', look);
    look();
  });

let database: Database | undefined;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;
beforeAll(async () => {
  // In memory; expired items looked for every 50 ms.
  database = await startDatabase([sessions], undefined, log, 'announce', { ttlSweepMs: 50 });
  const config = {
    endpoint: database.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  };
  client = new DynamoDBClient(config);
  streams = new DynamoDBStreamsClient(config);
}, 60_000);
afterAll(async () => {
  client?.destroy();
  streams?.destroy();
  await database?.close();
});

const seconds = (fromNow: number) => ({ N: String(Math.floor(Date.now() / 1000) + fromNow) });

test("the template's TimeToLiveSpecification is the table's", async () => {
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: 'sessions' }));
  expect(TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' });
  await expect(
    client.send(
      new UpdateTimeToLiveCommand({
        TableName: 'sessions',
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' },
      }),
    ),
  ).rejects.toMatchObject({ name: 'ValidationException' });
});

test('an expired item is deleted, its REMOVE record naming the service; the others are kept', async () => {
  const items = {
    expired: { id: { S: 'expired' }, expires: seconds(-60) },
    future: { id: { S: 'future' }, expires: seconds(3600) },
    text: { id: { S: 'text' }, expires: { S: '1' } },
    ancient: { id: { S: 'ancient' }, expires: seconds(-6 * 365 * 24 * 3600) },
  };
  for (const Item of Object.values(items)) await client.send(new PutItemCommand({ TableName: 'sessions', Item }));
  await line('sessions: 1 expired item(s) deleted (Time to Live)');

  const present = async (id: string) =>
    (await client.send(new GetItemCommand({ TableName: 'sessions', Key: { id: { S: id } } }))).Item !== undefined;
  expect({
    expired: await present('expired'),
    future: await present('future'),
    text: await present('text'),
    ancient: await present('ancient'),
  }).toEqual({ expired: false, future: true, text: true, ancient: true });

  const StreamArn = localTableStreamArn('sessions');
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn,
      ShardId: StreamDescription?.Shards?.[0]?.ShardId,
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  );
  const { Records } = await streams.send(new GetRecordsCommand({ ShardIterator }));
  const removes = (Records ?? []).filter(({ eventName }) => eventName === 'REMOVE');
  expect(removes).toEqual([
    expect.objectContaining({
      dynamodb: expect.objectContaining({ Keys: { id: { S: 'expired' } }, OldImage: items.expired }),
      userIdentity: { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' },
    }),
  ]);
  expect((Records ?? []).filter(({ userIdentity }) => userIdentity !== undefined)).toHaveLength(1);
});

test('UpdateTimeToLive disables it', async () => {
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: 'sessions',
      TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' },
    }),
  );
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: 'sessions' }));
  expect(TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'DISABLED' });
});
