// A stream mapping's poller on the local Kinesis (in memory, or on a data folder), read over Kinesis's own API, with
// the function stood in for by an Invoker that answers as the test says: where a shard is first read from, batching,
// how many batches of a shard are in flight at once, and where a restarted runner goes on. Each test waits for facts
// (the invocations, the log's lines), never for time.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { afterEach, expect, test } from '@jest/globals';
import type { StreamMapping } from '../../src/app/event-source-mappings.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import type { Invoker } from '../../src/services/targets.ts';

const streamArn = `arn:${localAws.partition}:kinesis:${localAws.region}:${localAws.accountId}:stream/clicks`;

const mapping = (more: Partial<StreamMapping>): StreamMapping => ({
  source: 'App/Mapping',
  functionName: 'Handler',
  streamArn,
  kind: 'kinesis',
  enabled: true,
  startingPosition: 'TRIM_HORIZON',
  batchSize: 100,
  windowSeconds: 0,
  filters: [],
  reportFailures: false,
  bisect: false,
  maximumRetryAttempts: -1,
  maximumRecordAgeSeconds: -1,
  parallelization: 1,
  ...more,
});

interface Record {
  kinesis: { partitionKey: string; data: string };
}

/** The function: each batch's records as `key:n`, in the order the batches began. */
const batches: string[][] = [];
let checks: (() => void)[] = [];
let answer: () => Promise<unknown> = async () => null;
const invoke: Invoker = async (_target, event) => {
  batches.push(
    (event as { Records: Record[] }).Records.map(
      ({ kinesis }) => `${kinesis.partitionKey}:${Buffer.from(kinesis.data, 'base64').toString()}`,
    ),
  );
  for (const check of checks) check();
  return { invocation: { outcome: 'result', result: await answer() }, durationMs: 0, initMs: undefined };
};
const lines: string[] = [];
const log = (line: string) => {
  lines.push(line);
  for (const check of checks) check();
};
/** Resolves once a line said includes `text`. */
const line = (text: string) =>
  new Promise<void>((resolve) => {
    const check = () => lines.some((l) => l.includes(text)) && resolve();
    checks.push(check);
    check();
  });

/** Resolves once `count` batches began. */
const batchesBegun = (count: number) =>
  new Promise<string[][]>((resolve) => {
    const check = () => batches.length >= count && resolve(batches);
    checks.push(check);
    check();
  });

const started: { close: () => Promise<void> }[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((services) => services.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  batches.length = 0;
  lines.length = 0;
  checks = [];
  answer = async () => null;
});

/** The local services with the stream `clicks` (one shard) and `mappings`, not polling yet; how to put records. */
const start = async (mappings: StreamMapping[], dataDir?: string) => {
  const services = await startLocalServices({
    dataDir,
    seeds: {
      parameters: [],
      secrets: [],
      notices: [],
      kinesis: [{ source: 'App/Clicks', name: 'clicks', mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 }],
      streamMappings: mappings,
    },
    log,
    invoke,
  });
  const kinesis = new KinesisClient({
    endpoint: services.urls.kinesis,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  let closed: Promise<void> | undefined;
  const closing = {
    close: () => {
      kinesis.destroy();
      closed ??= services.close();
      return closed;
    },
  };
  started.push(closing);
  /** Puts `records` (`key:n`) in one call; the arrival (epoch ms) of the last, read back. */
  const put = async (records: string[]) => {
    await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'clicks',
        Records: records.map((record) => {
          const [key = '', n = ''] = record.split(':');
          return { PartitionKey: key, Data: Buffer.from(n) };
        }),
      }),
    );
  };
  return { services, put, kinesis, close: closing.close };
};

const shard = 'shardId-000000000000';

// "Lambda parameters for Amazon Kinesis Data Streams event source mappings"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-parameters.html): StartingPosition LATEST reads the
// records that come after the mapping starts.
test('StartingPosition LATEST: what the stream held before is not sent', async () => {
  const { services, put } = await start([mapping({ startingPosition: 'LATEST' })]);
  await put(['a:1']);
  services.pollQueues();
  await line(`${shard} read from LATEST`);
  await put(['a:2']);
  expect(await batchesBegun(1)).toEqual([['a:2']]);
});

// The same page: AT_TIMESTAMP with StartingPositionTimestamp, "the time from which to start reading, in Unix time
// seconds".
test('StartingPosition AT_TIMESTAMP: the records from that time on', async () => {
  const from = mapping({ startingPosition: 'AT_TIMESTAMP' });
  const { services, put } = await start([from]);
  await put(['a:1']);
  // The clock past the first record's arrival (a fact, not a pause): the time given is after it.
  const put1 = Date.now();
  while (Date.now() <= put1) await new Promise((resolve) => setImmediate(resolve));
  const startingTimestamp = Date.now() / 1000;
  await put(['a:2']);
  services.seed({ parameters: [], secrets: [], notices: [], streamMappings: [{ ...from, startingTimestamp }] });
  services.pollQueues();
  expect(await batchesBegun(1)).toEqual([['a:2']]);
});

// "Polling and batching streams" (with-kinesis.html#kinesis-polling-and-batching): Lambda sends a batch when it is
// full or when MaximumBatchingWindowInSeconds ends.
test('MaximumBatchingWindowInSeconds: records put one after the other within the window, one batch', async () => {
  const { services, put } = await start([mapping({ windowSeconds: 2, batchSize: 3 })]);
  services.pollQueues();
  await line(`${shard} read from TRIM_HORIZON`);
  await put(['a:1']);
  await put(['a:2']);
  await put(['a:3', 'a:4']);
  expect(await batchesBegun(2)).toEqual([['a:1', 'a:2', 'a:3'], ['a:4']]);
});

// "Polling and batching streams": with a ParallelizationFactor, Lambda processes up to that many batches of a shard
// at once, "while maintaining in-order processing at the partition-key level"; without, one batch per shard.
test("ParallelizationFactor: batches of other keys at once, each key's records in order", async () => {
  const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
  const held: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  answer = async () => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise<void>((resolve) => {
      held.push(resolve);
      for (const check of checks) check();
    });
    inFlight -= 1;
    return null;
  };
  const { services, put } = await start([mapping({ batchSize: 1, parallelization: 3 })]);
  services.pollQueues();
  await put(keys.flatMap((key) => [`${key}:1`, `${key}:2`]));
  // Three batches held at once: each partition has one in flight.
  await new Promise<void>((resolve) => {
    checks.push(() => inFlight === 3 && resolve());
  });
  answer = async () => null;
  for (const release of held) release();
  const all = (await batchesBegun(12)).flat();
  expect(most).toBe(3);
  for (const key of keys)
    expect(all.filter((record) => record.startsWith(`${key}:`))).toEqual([`${key}:1`, `${key}:2`]);
});

// "Using Lambda with Kinesis Data Streams": the mapping keeps its place in each shard (its checkpoint); a runner
// started again on the same data folder goes on after it.
test('a restart on the same data folder goes on after the checkpoint: nothing sent twice', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'stream-poller-'));
  folders.push(folder);
  const first = await start([mapping({})], folder);
  first.services.pollQueues();
  await first.put(['a:1', 'a:2']);
  await line(`batch of 2 from ${shard}: ok`);
  await first.close();
  const second = await start([mapping({})], folder);
  second.services.pollQueues();
  await line(`${shard} read after `);
  await second.put(['a:3']);
  expect(await batchesBegun(2)).toEqual([['a:1', 'a:2'], ['a:3']]);
});

// A checkpoint the stream does not hold (a stream made again, a data folder of another): the shard is read from the
// mapping's StartingPosition, said, rather than the mapping stopping ("GetShardIterator", Amazon Kinesis Data Streams
// API Reference: InvalidArgumentException for a sequence number that is not the shard's).
test("a checkpoint that is no record of the shard: read from the mapping's starting position, said", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'stream-poller-'));
  folders.push(folder);
  const servicesFolder = join(folder, 'services');
  mkdirSync(servicesFolder, { recursive: true });
  const key = `App/Mapping ${streamArn} ${shard}`;
  writeFileSync(join(servicesFolder, 'stream-checkpoints.json'), JSON.stringify({ checkpoints: { [key]: '12345' } }));
  const { services, put } = await start([mapping({})], folder);
  await put(['a:1']);
  services.pollQueues();
  await line(`${shard} read from TRIM_HORIZON (its checkpoint 12345 is no record of it any more)`);
  expect(await batchesBegun(1)).toEqual([['a:1']]);
});
