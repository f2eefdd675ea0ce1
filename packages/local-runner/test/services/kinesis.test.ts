// The local Kinesis Data Streams, driven by the SDK v3 client unchanged (its default request handler speaks HTTP/2)
// and by HTTP/1.1 calls on the same port, as the Amazon Kinesis Data Streams API Reference describes each operation
// (https://docs.aws.amazon.com/kinesis/latest/APIReference/Welcome.html): PutRecord(s), GetShardIterator, GetRecords,
// DescribeStream(Summary), ListShards, ListStreams; records kept in the data folder across a restart.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectHttp2, type OutgoingHttpHeaders } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStreamCommand,
  DeleteStreamCommand,
  DescribeStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  ListShardsCommand,
  ListStreamsCommand,
  PutRecordCommand,
  PutRecordsCommand,
  type Shard,
} from '@aws-sdk/client-kinesis';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { serveJsonServices } from '../../src/services/json-protocol.ts';
import { emptyStreams, kinesisDataStreams } from '../../src/services/kinesis.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { stateFile } from '../../src/services/state-file.ts';
import { signedJsonHeaders } from '../helpers/json-service-call.ts';

const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  kinesis: [
    { source: 'App/Orders', name: 'orders', mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 },
    { source: 'App/Clicks', name: 'clicks', mode: 'PROVISIONED', shardCount: 4, retentionHours: 48 },
    { source: 'App/Flow', name: 'flow', mode: 'ON_DEMAND', shardCount: 1, retentionHours: 24 },
  ],
};

let dataDir: string;
let services: Awaited<ReturnType<typeof startLocalServices>>;
let kinesis: KinesisClient;

const start = async () => {
  services = await startLocalServices({ dataDir, seeds, log: () => undefined });
  kinesis = new KinesisClient({
    endpoint: services.urls.kinesis,
    region: localAws.region,
    credentials: localAws.credentials,
  });
};
const stop = async () => {
  kinesis.destroy();
  await services.close();
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kinesis-'));
  await start();
});
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const text = (data: Uint8Array | undefined) => Buffer.from(data ?? []).toString('utf8');

/** The records of a shard from `type` (TRIM_HORIZON by default) on, read with the SDK. */
const readShard = async (StreamName: string, ShardId: string, from: Partial<GetShardIteratorCommand['input']> = {}) => {
  const { ShardIterator } = await kinesis.send(
    new GetShardIteratorCommand({ StreamName, ShardId, ShardIteratorType: 'TRIM_HORIZON', ...from }),
  );
  return kinesis.send(new GetRecordsCommand({ ShardIterator }));
};

/** A JSON 1.1 call over HTTP/1.1 (fetch), signed as an SDK signs it: its status and parsed answer. */
const http1Call = async (operation: string, input: unknown) => {
  const body = JSON.stringify(input);
  const headers = await signedJsonHeaders(services.urls.kinesis, {
    target: `Kinesis_20131202.${operation}`,
    body,
    service: 'kinesis',
  });
  const response = await fetch(services.urls.kinesis, { method: 'POST', headers, body });
  return { status: response.status, answer: (await response.json()) as Record<string, unknown> };
};

describe('the SDK v3 client, over HTTP/2 (its default)', () => {
  test('its default request handler is an HTTP/2 one', async () => {
    // "Amazon Kinesis Data Streams ... SDK for JavaScript v3" uses NodeHttp2Handler by default (kinesalite #118).
    const handler = kinesis.config.requestHandler as { metadata?: { handlerProtocol?: string } };
    expect(handler.metadata?.handlerProtocol).toBe('h2');
  });

  test('PutRecords then GetRecords from TRIM_HORIZON returns the records in order, with their sequence numbers', async () => {
    // PutRecords: "Each record in the response array directly correlates with a record in the request array"; the
    // sequence numbers of a shard's records increase ("Kinesis Data Streams terminology": "Sequence numbers for the
    // same partition key generally increase over time").
    const put = await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'orders',
        Records: ['one', 'two', 'three'].map((word) => ({ Data: Buffer.from(word), PartitionKey: word })),
      }),
    );
    expect(put.FailedRecordCount).toBe(0);
    const numbers = (put.Records ?? []).map((record) => record.SequenceNumber ?? '');
    expect(numbers.every((number) => /^\d+$/.test(number))).toBe(true);
    expect([...numbers].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))).toEqual(numbers);
    const got = await readShard('orders', 'shardId-000000000000');
    expect(got.Records?.map((record) => text(record.Data))).toEqual(['one', 'two', 'three']);
    expect(got.Records?.map((record) => record.SequenceNumber)).toEqual(numbers);
    expect(got.Records?.[0]?.PartitionKey).toBe('one');
    expect(got.Records?.[0]?.ApproximateArrivalTimestamp).toBeInstanceOf(Date);
    // "MillisBehindLatest ... A value of zero indicates that record processing is caught up".
    expect(got.MillisBehindLatest).toBe(0);
    expect(got.NextShardIterator).toEqual(expect.any(String));
  });
});

describe('HTTP/1.1 calls on the same port (the AWS CLI, boto3)', () => {
  test('PutRecord then GetShardIterator and GetRecords answer as over HTTP/2', async () => {
    const put = await http1Call('PutRecord', {
      StreamName: 'orders',
      Data: Buffer.from('by http/1.1').toString('base64'),
      PartitionKey: 'h1',
    });
    expect(put).toEqual({
      status: 200,
      answer: { ShardId: 'shardId-000000000000', SequenceNumber: expect.stringMatching(/^\d+$/) },
    });
    const iterator = await http1Call('GetShardIterator', {
      StreamName: 'orders',
      ShardId: 'shardId-000000000000',
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      StartingSequenceNumber: put.answer.SequenceNumber,
    });
    const got = await http1Call('GetRecords', { ShardIterator: iterator.answer.ShardIterator });
    expect(got.status).toBe(200);
    expect(got.answer.Records).toEqual([
      {
        SequenceNumber: put.answer.SequenceNumber,
        ApproximateArrivalTimestamp: expect.any(Number),
        Data: Buffer.from('by http/1.1').toString('base64'),
        PartitionKey: 'h1',
      },
    ]);
  });

  test('a stream that is not there is ResourceNotFoundException (400)', async () => {
    const answered = await http1Call('DescribeStream', { StreamName: 'nowhere' });
    expect(answered).toEqual({
      status: 400,
      answer: { __type: 'ResourceNotFoundException', message: expect.stringContaining('nowhere') },
    });
  });
});

/** An HTTP/2 call with `headers` (unsigned): its status and answer. */
const http2Call = (headers: OutgoingHttpHeaders) =>
  new Promise<{ status: number; answer: unknown }>((resolve, reject) => {
    const session = connectHttp2(services.urls.kinesis);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/', ...headers });
    let status = 0;
    stream.on('response', (answered) => (status = Number(answered[':status'])));
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      session.close();
      resolve({ status, answer: JSON.parse(Buffer.concat(chunks).toString()) });
    });
    stream.end('{"StreamName":"orders"}');
  });

describe('the loopback and Origin checks hold over HTTP/2', () => {
  // As every server of the runner (http-server.ts): a web page (an Origin) and another site's name (a DNS rebinding
  // page: here its `:authority`, RFC 9113 section 8.3.1) are refused, 403.
  test('a request with an Origin is refused', async () => {
    const answered = await http2Call({
      origin: 'http://localhost:5173',
      'x-amz-target': 'Kinesis_20131202.ListShards',
    });
    expect(answered).toEqual({ status: 403, answer: expect.objectContaining({ __type: 'AccessDeniedException' }) });
  });

  test("a request naming another site's host is refused", async () => {
    const answered = await http2Call({
      ':authority': 'rebound.example:80',
      'x-amz-target': 'Kinesis_20131202.ListShards',
    });
    expect(answered).toEqual({ status: 403, answer: expect.objectContaining({ __type: 'AccessDeniedException' }) });
  });

  test('a loopback request with no signature is refused as AWS refuses it', async () => {
    const answered = await http2Call({ 'x-amz-target': 'Kinesis_20131202.ListShards' });
    expect(answered).toEqual({
      status: 400,
      answer: expect.objectContaining({ __type: 'MissingAuthenticationTokenException' }),
    });
  });
});

describe('shards by partition key hash', () => {
  // "Kinesis Data Streams terminology" (https://docs.aws.amazon.com/streams/latest/dev/key-concepts.html): "Kinesis
  // Data Streams uses MD5 to map partition keys to 128-bit integer values and to map associated data records to shards
  // using the hash key ranges of the shards."
  let shards: Shard[];
  beforeAll(async () => {
    shards = (await kinesis.send(new ListShardsCommand({ StreamName: 'clicks' }))).Shards ?? [];
  });

  const shardOfHash = (hash: bigint) =>
    shards.find(
      ({ HashKeyRange }) =>
        BigInt(HashKeyRange?.StartingHashKey ?? -1) <= hash && hash <= BigInt(HashKeyRange?.EndingHashKey ?? -1),
    )?.ShardId;

  test('four shards split the 128-bit hash key space evenly, end to end', () => {
    expect(shards.map(({ ShardId }) => ShardId)).toEqual([
      'shardId-000000000000',
      'shardId-000000000001',
      'shardId-000000000002',
      'shardId-000000000003',
    ]);
    expect(shards[0]?.HashKeyRange?.StartingHashKey).toBe('0');
    expect(shards[3]?.HashKeyRange?.EndingHashKey).toBe(String(2n ** 128n - 1n));
    for (const [index, shard] of shards.slice(1).entries())
      expect(BigInt(shard.HashKeyRange?.StartingHashKey ?? 0)).toBe(
        BigInt(shards[index]?.HashKeyRange?.EndingHashKey ?? 0) + 1n,
      );
    expect(shards[1]?.HashKeyRange?.StartingHashKey).toBe(String(2n ** 126n));
  });

  test("each record goes to the shard whose range holds its key's MD5; ExplicitHashKey overrides it", async () => {
    const keys = Array.from({ length: 24 }, (_, index) => `user-${index}`);
    const put = await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'clicks',
        Records: keys.map((key) => ({ Data: Buffer.from(key), PartitionKey: key })),
      }),
    );
    const md5 = (key: string) => BigInt(`0x${createHash('md5').update(key).digest('hex')}`);
    expect(put.Records?.map((record) => record.ShardId)).toEqual(keys.map((key) => shardOfHash(md5(key))));
    expect(new Set(put.Records?.map((record) => record.ShardId)).size).toBe(4);
    // PutRecord ExplicitHashKey: "The hash value used to explicitly determine the shard the data record is assigned
    // to by overriding the partition key hash."
    const pinned = await kinesis.send(
      new PutRecordCommand({
        StreamName: 'clicks',
        Data: Buffer.from('pinned'),
        PartitionKey: 'user-0',
        ExplicitHashKey: String(2n ** 127n + 5n),
      }),
    );
    expect(pinned.ShardId).toBe('shardId-000000000002');
    const onShard = await readShard('clicks', 'shardId-000000000002');
    expect(onShard.Records?.map((record) => text(record.Data))).toEqual([
      ...keys.filter((key) => shardOfHash(md5(key)) === 'shardId-000000000002'),
      'pinned',
    ]);
  });

  test('an ExplicitHashKey out of [0, 2^128 - 1] is InvalidArgumentException', async () => {
    const putting = kinesis.send(
      new PutRecordCommand({
        StreamName: 'clicks',
        Data: Buffer.from('x'),
        PartitionKey: 'k',
        ExplicitHashKey: String(2n ** 128n),
      }),
    );
    await expect(putting).rejects.toMatchObject({ name: 'InvalidArgumentException' });
  });
});

describe('shard iterators', () => {
  // GetShardIterator (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_GetShardIterator.html):
  // AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, TRIM_HORIZON ("the last untrimmed record in the shard ... the oldest"),
  // LATEST ("just after the most recent record in the shard"), AT_TIMESTAMP.
  let numbers: string[];
  let between: Date;
  beforeAll(async () => {
    const first = await kinesis.send(
      new PutRecordCommand({ StreamName: 'flow', Data: Buffer.from('a'), PartitionKey: 'p', ExplicitHashKey: '0' }),
    );
    // Every record after this instant arrived at or after it: waited for as a fact (the clock has moved on).
    const arrived = (await readShard('flow', 'shardId-000000000000')).Records?.[0]?.ApproximateArrivalTimestamp;
    while (Date.now() <= (arrived?.getTime() ?? 0)) await new Promise((resolve) => setImmediate(resolve));
    between = new Date();
    const rest = await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'flow',
        Records: ['b', 'c'].map((word) => ({ Data: Buffer.from(word), PartitionKey: 'p', ExplicitHashKey: '0' })),
      }),
    );
    numbers = [first.SequenceNumber ?? '', ...(rest.Records ?? []).map((record) => record.SequenceNumber ?? '')];
  });

  const words = async (from: Partial<GetShardIteratorCommand['input']>) =>
    ((await readShard('flow', 'shardId-000000000000', from)).Records ?? []).map((record) => text(record.Data));

  test('an ON_DEMAND stream has four shards', async () => {
    const { StreamDescriptionSummary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: 'flow' }));
    expect(StreamDescriptionSummary).toMatchObject({
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      OpenShardCount: 4,
      StreamStatus: 'ACTIVE',
    });
  });

  test('TRIM_HORIZON, AT and AFTER a sequence number, AT_TIMESTAMP', async () => {
    expect(await words({ ShardIteratorType: 'TRIM_HORIZON' })).toEqual(['a', 'b', 'c']);
    expect(await words({ ShardIteratorType: 'AT_SEQUENCE_NUMBER', StartingSequenceNumber: numbers[1] })).toEqual([
      'b',
      'c',
    ]);
    expect(await words({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: numbers[1] })).toEqual([
      'c',
    ]);
    expect(await words({ ShardIteratorType: 'AT_TIMESTAMP', Timestamp: between })).toEqual(['b', 'c']);
  });

  test('LATEST reads only what is written after; NextShardIterator goes on where the last call stopped', async () => {
    const { ShardIterator } = await kinesis.send(
      new GetShardIteratorCommand({ StreamName: 'flow', ShardId: 'shardId-000000000000', ShardIteratorType: 'LATEST' }),
    );
    const none = await kinesis.send(new GetRecordsCommand({ ShardIterator }));
    expect(none.Records).toEqual([]);
    await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'flow',
        Records: ['d', 'e', 'f'].map((word) => ({ Data: Buffer.from(word), PartitionKey: 'p', ExplicitHashKey: '1' })),
      }),
    );
    const two = await kinesis.send(new GetRecordsCommand({ ShardIterator: none.NextShardIterator, Limit: 2 }));
    expect(two.Records?.map((record) => text(record.Data))).toEqual(['d', 'e']);
    // One record is left unread: the consumer is behind (MillisBehindLatest is how far, >= 0).
    expect(two.MillisBehindLatest).toEqual(expect.any(Number));
    const last = await kinesis.send(new GetRecordsCommand({ ShardIterator: two.NextShardIterator }));
    expect(last.Records?.map((record) => text(record.Data))).toEqual(['f']);
    expect(last.MillisBehindLatest).toBe(0);
  });

  test('a sequence number of another shard, or a shard that is not there, is refused', async () => {
    const other = kinesis.send(
      new GetShardIteratorCommand({
        StreamName: 'flow',
        ShardId: 'shardId-000000000001',
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        StartingSequenceNumber: numbers[0],
      }),
    );
    await expect(other).rejects.toMatchObject({ name: 'InvalidArgumentException' });
    const missing = kinesis.send(
      new GetShardIteratorCommand({ StreamName: 'flow', ShardId: 'shardId-000000000009', ShardIteratorType: 'LATEST' }),
    );
    await expect(missing).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('describing and listing', () => {
  test('DescribeStream: the stream, its shards and their ranges; its ARN as the template gives it', async () => {
    const { StreamDescription } = await kinesis.send(new DescribeStreamCommand({ StreamName: 'clicks', Limit: 3 }));
    expect(StreamDescription).toMatchObject({
      StreamName: 'clicks',
      StreamARN: `arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/clicks`,
      StreamStatus: 'ACTIVE',
      RetentionPeriodHours: 48,
      HasMoreShards: true,
    });
    expect(StreamDescription?.Shards).toHaveLength(3);
    const rest = await kinesis.send(
      new DescribeStreamCommand({ StreamName: 'clicks', ExclusiveStartShardId: 'shardId-000000000002' }),
    );
    expect(rest.StreamDescription?.Shards?.map((shard) => shard.ShardId)).toEqual(['shardId-000000000003']);
    expect(rest.StreamDescription?.HasMoreShards).toBe(false);
  });

  test('ListShards pages with NextToken; ListStreams names every stream', async () => {
    const first = await kinesis.send(new ListShardsCommand({ StreamName: 'clicks', MaxResults: 3 }));
    expect(first.Shards).toHaveLength(3);
    const next = await kinesis.send(new ListShardsCommand({ NextToken: first.NextToken }));
    expect(next.Shards?.map((shard) => shard.ShardId)).toEqual(['shardId-000000000003']);
    expect(next.NextToken).toBeUndefined();
    const { StreamNames, HasMoreStreams } = await kinesis.send(new ListStreamsCommand({}));
    expect({ StreamNames, HasMoreStreams }).toEqual({
      StreamNames: ['clicks', 'flow', 'orders'],
      HasMoreStreams: false,
    });
  });

  test('by StreamARN as well as by name', async () => {
    const StreamARN = `arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/orders`;
    const { StreamDescriptionSummary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamARN }));
    expect(StreamDescriptionSummary?.StreamName).toBe('orders');
  });
});

describe('the data folder', () => {
  test('records written before a restart are read after it', async () => {
    const put = await kinesis.send(
      new PutRecordCommand({ StreamName: 'orders', Data: Buffer.from('kept'), PartitionKey: 'restart' }),
    );
    await stop();
    await start();
    const got = await readShard('orders', 'shardId-000000000000', {
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      StartingSequenceNumber: put.SequenceNumber,
    });
    expect(got.Records?.map((record) => text(record.Data))).toEqual(['kept']);
    // A sequence number given after the restart comes after those given before it.
    const after = await kinesis.send(
      new PutRecordCommand({ StreamName: 'orders', Data: Buffer.from('after'), PartitionKey: 'restart' }),
    );
    expect(BigInt(after.SequenceNumber ?? 0)).toBeGreaterThan(BigInt(put.SequenceNumber ?? 0));
  });
});

describe('two processes on one data folder (start and invoke)', () => {
  test('what one writes, the other reads at its next call', () => {
    // Each keeps the state parsed between calls: a write by the other must still be seen (state-file.ts).
    const folder = mkdtempSync(join(tmpdir(), 'kinesis-two-'));
    try {
      const [one, other] = [0, 1].map(() => kinesisDataStreams(stateFile(folder, 'kinesis', emptyStreams)));
      const seed = { source: 'App/T', name: 't', mode: 'PROVISIONED' as const, shardCount: 1, retentionHours: 24 };
      one?.seed([{ ...seed, fingerprint: 'f' }]);
      const call = (side: typeof one, operation: string, input: Record<string, unknown>) =>
        side?.service.operations[operation]?.(input) as Record<string, unknown>;
      const { ShardIterator } = call(other, 'GetShardIterator', {
        StreamName: 't',
        ShardId: 'shardId-000000000000',
        ShardIteratorType: 'TRIM_HORIZON',
      });
      for (const word of ['a', 'b'])
        call(one, 'PutRecord', { StreamName: 't', Data: Buffer.from(word).toString('base64'), PartitionKey: word });
      const got = call(other, 'GetRecords', { ShardIterator }).Records as { Data: string }[];
      expect(got.map(({ Data }) => Buffer.from(Data, 'base64').toString())).toEqual(['a', 'b']);
      call(other, 'PutRecord', { StreamName: 't', Data: Buffer.from('c').toString('base64'), PartitionKey: 'c' });
      const put = call(one, 'PutRecord', {
        StreamName: 't',
        Data: Buffer.from('d').toString('base64'),
        PartitionKey: 'd',
      });
      // The sequence numbers go on from the other's: neither overwrote the other's record.
      expect(put.SequenceNumber).toBe(`49${'0'.repeat(6)}${'4'.padStart(48, '0')}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('time: iterator expiry and retention, on a clock the test moves', () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  let served: Awaited<ReturnType<typeof serveJsonServices>>;
  let client: KinesisClient;
  beforeAll(async () => {
    const local = kinesisDataStreams(stateFile(undefined, 'kinesis', emptyStreams), () => now);
    local.seed([
      {
        source: 'App/Short',
        name: 'short',
        mode: 'PROVISIONED',
        shardCount: 1,
        retentionHours: 24,
        fingerprint: 'f',
      },
      { source: 'App/Large', name: 'large', mode: 'PROVISIONED', shardCount: 1, retentionHours: 24, fingerprint: 'g' },
    ]);
    served = await serveJsonServices([local.service], () => undefined);
    client = new KinesisClient({ endpoint: served.url, region: localAws.region, credentials: localAws.credentials });
  });
  afterAll(async () => {
    client.destroy();
    await served.close();
  });

  const iterator = async (ShardIteratorType: 'TRIM_HORIZON' | 'LATEST') =>
    (
      await client.send(
        new GetShardIteratorCommand({ StreamName: 'short', ShardId: 'shardId-000000000000', ShardIteratorType }),
      )
    ).ShardIterator;

  test('a record of 1 MiB, data and partition key together, is taken; one byte more is ValidationException', async () => {
    // PutRecord: "The data blob ... The maximum size of the data payload (the data blob plus the partition key) is
    // 1 MiB"; PutRecords: up to 500 records, "up to a limit of 5 MiB for the entire request".
    const PartitionKey = 'big';
    const Data = Buffer.alloc(1024 * 1024 - PartitionKey.length, 7);
    const put = await client.send(new PutRecordCommand({ StreamName: 'large', Data, PartitionKey }));
    expect(put.SequenceNumber).toMatch(/^\d+$/);
    const over = client.send(
      new PutRecordCommand({ StreamName: 'large', Data: Buffer.concat([Data, Buffer.from([1])]), PartitionKey }),
    );
    await expect(over).rejects.toMatchObject({ name: 'ValidationException' });
  });

  test('an iterator is good for 5 minutes; then ExpiredIteratorException', async () => {
    // GetShardIterator: "A shard iterator expires 5 minutes after it is returned to the requester."
    const ShardIterator = await iterator('LATEST');
    now += 5 * 60_000;
    const fresh = await client.send(new GetRecordsCommand({ ShardIterator }));
    expect(fresh.Records).toEqual([]);
    now += 5 * 60_000 + 1;
    // The iterator GetRecords returned is new: good for 5 minutes from its own call, not the first one's.
    await expect(client.send(new GetRecordsCommand({ ShardIterator: fresh.NextShardIterator }))).rejects.toMatchObject({
      name: 'ExpiredIteratorException',
    });
    await expect(client.send(new GetRecordsCommand({ ShardIterator }))).rejects.toMatchObject({
      name: 'ExpiredIteratorException',
    });
  });

  test('records older than the retention period are no longer read; TRIM_HORIZON starts after them', async () => {
    // "Kinesis Data Streams terminology": "The retention period is the length of time that data records are
    // accessible after they are added to the stream. A stream's retention period is set to a default of 24 hours".
    const put = (word: string) =>
      client.send(new PutRecordCommand({ StreamName: 'short', Data: Buffer.from(word), PartitionKey: word }));
    await put('old');
    now += 23 * 3_600_000;
    await put('new');
    const words = async () =>
      ((await client.send(new GetRecordsCommand({ ShardIterator: await iterator('TRIM_HORIZON') }))).Records ?? []).map(
        (record) => text(record.Data),
      );
    expect(await words()).toEqual(['old', 'new']);
    now += 3_600_000 + 1;
    expect(await words()).toEqual(['new']);
    const behind = await client.send(
      new GetRecordsCommand({ ShardIterator: await iterator('TRIM_HORIZON'), Limit: 1 }),
    );
    expect(behind.MillisBehindLatest).toBe(0);
  });

  test('MillisBehindLatest: how long ago the first record left unread arrived', async () => {
    const ShardIterator = await iterator('LATEST');
    await client.send(new PutRecordCommand({ StreamName: 'short', Data: Buffer.from('1'), PartitionKey: 'k' }));
    now += 1_000;
    await client.send(new PutRecordCommand({ StreamName: 'short', Data: Buffer.from('2'), PartitionKey: 'k' }));
    now += 500;
    const first = await client.send(new GetRecordsCommand({ ShardIterator, Limit: 1 }));
    expect(first.MillisBehindLatest).toBe(500);
    const second = await client.send(new GetRecordsCommand({ ShardIterator: first.NextShardIterator }));
    expect(second.MillisBehindLatest).toBe(0);
  });
});

describe('CreateStream and DeleteStream', () => {
  // CreateStream (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_CreateStream.html): ResourceInUseException
  // for a name in use; DeleteStream: the stream and its records go. Locally a stream is ACTIVE at once (no CREATING).
  test('a stream made by CreateStream takes records; the same name again is refused; DeleteStream removes it', async () => {
    await kinesis.send(new CreateStreamCommand({ StreamName: 'made', ShardCount: 2 }));
    const { StreamDescriptionSummary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: 'made' }));
    expect(StreamDescriptionSummary).toMatchObject({
      StreamStatus: 'ACTIVE',
      OpenShardCount: 2,
      RetentionPeriodHours: 24,
    });
    await expect(kinesis.send(new CreateStreamCommand({ StreamName: 'made', ShardCount: 1 }))).rejects.toMatchObject({
      name: 'ResourceInUseException',
    });
    const put = await kinesis.send(
      new PutRecordCommand({ StreamName: 'made', Data: Buffer.from('x'), PartitionKey: 'k' }),
    );
    expect(put.ShardId).toMatch(/^shardId-00000000000[01]$/);
    await kinesis.send(new DeleteStreamCommand({ StreamName: 'made' }));
    await expect(kinesis.send(new DescribeStreamCommand({ StreamName: 'made' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});
