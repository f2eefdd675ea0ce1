// The local Kinesis Data Streams: the operations functions and stream pollers use, over the AWS JSON 1.1 protocol
// (`X-Amz-Target: Kinesis_20131202.<Op>`, which the SDK v3 client and boto3 speak; the Java SDK's CBOR is not served)
// on a port of its own that takes HTTP/1.1 and HTTP/2 alike (the SDK v3 client's default is HTTP/2). As the Amazon
// Kinesis Data Streams API Reference (https://docs.aws.amazon.com/kinesis/latest/APIReference/) describes them:
// CreateStream, DeleteStream, DescribeStream, DescribeStreamSummary, ListStreams, ListShards, PutRecord, PutRecords,
// GetShardIterator (TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, AT_TIMESTAMP) and GetRecords.
// Records go to shards by their partition key's MD5 (kinesis-shards.ts); they are kept for the stream's retention
// period (24 hours unless the template says otherwise) in `<data folder>/services/kinesis.json`. A stream is ACTIVE
// at once, and has no throughput limits, resharding, consumers (SubscribeToShard) or encryption.
import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import type { StreamSeed } from '../app/kinesis-resources.ts';
import { localAws } from '../app/local-aws.ts';
import { type JsonInput, type JsonService, ServiceError } from './json-protocol.ts';
import {
  explicitHashKey,
  hashKeyRange,
  partitionKeyHash,
  placeOf,
  sequenceNumber,
  shardId,
  shardIndexOf,
  shardIndexOfId,
} from './kinesis-shards.ts';
import type { StateFile } from './state-file.ts';

interface StoredRecord {
  /** Its place in its shard: 1, 2, ... */
  place: number;
  /** Its data, base64. */
  data: string;
  partitionKey: string;
  /** When it arrived, in epoch milliseconds. */
  arrived: number;
}

interface StoredShard {
  /** The place of the last record written to it (0: none yet). */
  last: number;
  records: StoredRecord[];
}

type StreamMode = 'PROVISIONED' | 'ON_DEMAND';

interface StoredStream {
  name: string;
  mode: StreamMode;
  retentionHours: number;
  /** When it was created, in epoch milliseconds: an iterator of a stream since deleted and created again is refused. */
  created: number;
  shards: StoredShard[];
  /** The fingerprint of the template's seed that made it, if one did. */
  seeded?: string;
}

export interface KinesisState {
  streams: StoredStream[];
}

export const emptyStreams = (): KinesisState => ({ streams: [] });

/** A stream's ARN: `arn:aws:kinesis:<region>:<account>:stream/<name>` ("AWS::Kinesis::Stream" Arn). */
export const streamArn = (name: string) =>
  `arn:${localAws.partition}:kinesis:${localAws.region}:${localAws.accountId}:stream/${name}`;

/**
 * The shards an ON_DEMAND stream has locally: 4, the shards of the write capacity the developer guide gives a new
 * on-demand stream (4 MB/s; "Choose the data stream capacity mode"). How many shards AWS opens is not documented.
 */
const onDemandShards = 4;

/** How long a shard iterator is good ("GetShardIterator": "A shard iterator expires 5 minutes after it is returned"). */
const iteratorLifeMs = 5 * 60_000;

/** The most records GetRecords returns ("GetRecords": Limit, at most 10,000, the default) and PutRecords takes. */
const maxGetLimit = 10_000;
const maxPutRecords = 500;

/** The most a record's data and partition key may weigh together ("PutRecord": 1 MiB). */
const maxRecordBytes = 1024 * 1024;

/**
 * The largest request taken: PutRecords' 5 MiB ("Each PutRecords request can support up to 500 records ... up to a
 * limit of 5 MiB for the entire request"), base64 in JSON (4/3 of it), with room for the JSON around it.
 */
const maxRequestBytes = 8 * 1024 * 1024;

/** The most data one GetRecords returns ("GetRecords": "up to 10 MiB of data"). */
const maxGetBytes = 10 * 1024 * 1024;

const text = (input: JsonInput, name: string) => {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
};

const invalid = (message: string) => new ServiceError('InvalidArgumentException', message);

const validation = (message: string) => new ServiceError('ValidationException', message);

/** An integer member within [min, max], or `fallback` when absent. */
const integer = (input: JsonInput, name: string, min: number, max: number, fallback: number) => {
  const value = input[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw validation(
      `1 validation error detected: Value '${String(value)}' at '${name}' failed to satisfy constraint: Member must be an integer between ${min} and ${max}`,
    );
  return value;
};

const notFound = (name: string) =>
  new ServiceError('ResourceNotFoundException', `Stream ${name} under account ${localAws.accountId} not found.`);

/** The stream a call names, by StreamName or StreamARN; ResourceNotFoundException when there is none. */
const streamOf = (state: KinesisState, input: JsonInput) => {
  const name = text(input, 'StreamName');
  const arn = text(input, 'StreamARN');
  if (name === undefined && arn === undefined) throw invalid('Either StreamName or StreamARN should be provided.');
  const stream = state.streams.find((candidate) =>
    arn === undefined ? candidate.name === name : streamArn(candidate.name) === arn,
  );
  if (!stream || (name !== undefined && stream.name !== name)) throw notFound(name ?? arn ?? '');
  return stream;
};

/** The records a shard still holds: those younger than the stream's retention period. */
const retained = (stream: StoredStream, shard: StoredShard, now: number) => {
  const oldest = now - stream.retentionHours * 3_600_000;
  return shard.records.filter((record) => record.arrived >= oldest);
};

const shardDescription = (stream: StoredStream, index: number) => ({
  ShardId: shardId(index),
  HashKeyRange: hashKeyRange(index, stream.shards.length),
  SequenceNumberRange: { StartingSequenceNumber: sequenceNumber(index, 0) },
});

const seconds = (milliseconds: number) => milliseconds / 1000;

const newStream = (name: string, mode: StreamMode, shardCount: number, retentionHours: number, now: number) => ({
  name,
  mode,
  retentionHours,
  created: now,
  shards: Array.from({ length: mode === 'ON_DEMAND' ? onDemandShards : shardCount }, () => ({ last: 0, records: [] })),
});

/**
 * `file` read through a cache: a stream's records, base64, make the state large, and pollers read it every second, so
 * it is parsed again only when the file is not the one last read or written (another process, `invoke`, wrote it:
 * the rename of each write gives it a new inode). In memory, the one copy is the cache's. What `read` returns is
 * shared: an operation changes it only through `changing`.
 */
const cachedState = (file: StateFile<KinesisState>) => {
  let held: { state: KinesisState; stamp: string } | undefined;
  const stampOf = () => {
    if (file.path === undefined) return 'memory';
    try {
      const { ino, size, mtimeMs } = statSync(file.path);
      return `${ino}:${size}:${mtimeMs}`;
    } catch {
      return 'none';
    }
  };
  return {
    read: () => {
      const stamp = stampOf();
      if (held?.stamp !== stamp) held = { state: file.read(), stamp };
      return held.state;
    },
    write: (state: KinesisState) => {
      if (file.path !== undefined) file.write(state);
      held = { state, stamp: stampOf() };
    },
    /** Drops the cache, to read the file again; in memory the cache is the state, kept. */
    forget: () => {
      if (file.path !== undefined) held = undefined;
    },
  };
};

/** What the local Kinesis holds and when it is: its state, its clock, who waits for records. */
interface Store {
  file: ReturnType<typeof cachedState>;
  now: () => number;
  appended: EventEmitter;
}

/**
 * Runs `change` on the state and writes it. Each change checks its input before it changes anything; one that fails
 * anyway leaves the file to be read again.
 */
const changing = <T>(store: Store, change: (state: KinesisState) => T) => {
  const state = store.file.read();
  try {
    const result = change(state);
    store.file.write(state);
    return result;
  } catch (error) {
    store.file.forget();
    throw error;
  }
};

const modeOf = (input: JsonInput): StreamMode => {
  const details = input.StreamModeDetails;
  const mode = typeof details === 'object' && details !== null ? (details as JsonInput).StreamMode : undefined;
  if (mode === undefined || mode === 'PROVISIONED' || mode === 'ON_DEMAND') return mode ?? 'PROVISIONED';
  throw validation(
    `1 validation error detected: Value '${String(mode)}' at 'streamModeDetails.streamMode' failed to satisfy constraint: Member must satisfy enum value set: [ON_DEMAND, PROVISIONED]`,
  );
};

const createStream = (store: Store) => (input: JsonInput) =>
  changing(store, (state) => {
    const name = text(input, 'StreamName');
    if (name === undefined || !/^[a-zA-Z0-9_.-]{1,128}$/.test(name))
      throw validation(
        `1 validation error detected: Value '${String(name)}' at 'streamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+`,
      );
    const mode = modeOf(input);
    if (mode === 'PROVISIONED' && input.ShardCount === undefined)
      throw invalid('ShardCount is required for a PROVISIONED stream.');
    const shardCount = integer(input, 'ShardCount', 1, 10_000, 1);
    if (state.streams.some((stream) => stream.name === name))
      throw new ServiceError(
        'ResourceInUseException',
        `Stream ${name} under account ${localAws.accountId} already exists.`,
      );
    state.streams.push(newStream(name, mode, shardCount, 24, store.now()));
    return {};
  });

const deleteStream = (store: Store) => (input: JsonInput) =>
  changing(store, (state) => {
    const stream = streamOf(state, input);
    state.streams = state.streams.filter((candidate) => candidate !== stream);
    return {};
  });

/** The shards of `stream` after ExclusiveStartShardId (all of them without one), at most `limit`. */
const shardsAfter = (stream: StoredStream, exclusiveStart: string | undefined, limit: number) => {
  const from = exclusiveStart === undefined ? 0 : (shardIndexOfId(exclusiveStart) ?? -1) + 1;
  const indexes = stream.shards.map((_, index) => index).filter((index) => index >= from);
  return {
    shards: indexes.slice(0, limit).map((index) => shardDescription(stream, index)),
    more: indexes.length > limit,
  };
};

const streamSummary = (stream: StoredStream) => ({
  StreamName: stream.name,
  StreamARN: streamArn(stream.name),
  StreamStatus: 'ACTIVE',
  StreamModeDetails: { StreamMode: stream.mode },
  StreamCreationTimestamp: seconds(stream.created),
});

const describeStream = (store: Store) => (input: JsonInput) => {
  const stream = streamOf(store.file.read(), input);
  const limit = integer(input, 'Limit', 1, 10_000, 100);
  const { shards, more } = shardsAfter(stream, text(input, 'ExclusiveStartShardId'), limit);
  return {
    StreamDescription: {
      ...streamSummary(stream),
      Shards: shards,
      HasMoreShards: more,
      RetentionPeriodHours: stream.retentionHours,
      EnhancedMonitoring: [{ ShardLevelMetrics: [] }],
      EncryptionType: 'NONE',
    },
  };
};

const describeStreamSummary = (store: Store) => (input: JsonInput) => {
  const stream = streamOf(store.file.read(), input);
  return {
    StreamDescriptionSummary: {
      ...streamSummary(stream),
      RetentionPeriodHours: stream.retentionHours,
      EnhancedMonitoring: [{ ShardLevelMetrics: [] }],
      EncryptionType: 'NONE',
      OpenShardCount: stream.shards.length,
      ConsumerCount: 0,
    },
  };
};

/** A ListShards or ListStreams NextToken: where the next page starts, as base64 JSON. */
const token = (value: { stream: string; after: string }) => Buffer.from(JSON.stringify(value)).toString('base64');

const fromToken = (given: string) => {
  try {
    const value: unknown = JSON.parse(Buffer.from(given, 'base64').toString('utf8'));
    const { stream, after } = (value ?? {}) as Record<string, unknown>;
    if (typeof stream === 'string' && typeof after === 'string') return { stream, after };
  } catch {}
  throw invalid(`Invalid ShardIterator or NextToken: ${given}`);
};

/** ListShards: NextToken alone, or the stream with ExclusiveStartShardId or an AFTER_SHARD_ID ShardFilter. */
const listShards = (store: Store) => (input: JsonInput) => {
  const given = text(input, 'NextToken');
  if (given !== undefined && (input.StreamName !== undefined || input.StreamARN !== undefined))
    throw invalid('NextToken and StreamName cannot be provided together.');
  const page = given === undefined ? undefined : fromToken(given);
  const state = store.file.read();
  const stream = streamOf(state, page ? { StreamName: page.stream } : input);
  const filter = (input.ShardFilter ?? {}) as JsonInput;
  const after =
    page?.after ??
    text(input, 'ExclusiveStartShardId') ??
    (filter.Type === 'AFTER_SHARD_ID' ? text(filter, 'ShardId') : undefined);
  const limit = integer(input, 'MaxResults', 1, 10_000, 1000);
  const { shards, more } = shardsAfter(stream, after, limit);
  const lastShard = shards.at(-1)?.ShardId;
  return { Shards: shards, ...(more && lastShard && { NextToken: token({ stream: stream.name, after: lastShard }) }) };
};

const listStreams = (store: Store) => (input: JsonInput) => {
  const given = text(input, 'NextToken');
  const after = given === undefined ? text(input, 'ExclusiveStartStreamName') : fromToken(given).after;
  const limit = integer(input, 'Limit', 1, 10_000, 100);
  const streams = store.file
    .read()
    .streams.filter((stream) => after === undefined || stream.name > after)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const page = streams.slice(0, limit);
  const more = streams.length > limit;
  const last = page.at(-1)?.name;
  return {
    StreamNames: page.map((stream) => stream.name),
    HasMoreStreams: more,
    StreamSummaries: page.map(streamSummary),
    ...(more && last && { NextToken: token({ stream: '', after: last }) }),
  };
};

/** A record PutRecord or PutRecords takes, checked: its data, its key and the shard its hash names. */
const recordOf = (stream: StoredStream, entry: JsonInput, where: string) => {
  const data = text(entry, 'Data');
  const partitionKey = text(entry, 'PartitionKey');
  if (data === undefined)
    throw validation(
      `1 validation error detected: Value null at '${where}data' failed to satisfy constraint: Member must not be null`,
    );
  if (partitionKey === undefined || partitionKey.length < 1 || partitionKey.length > 256)
    throw validation(
      `1 validation error detected: Value at '${where}partitionKey' failed to satisfy constraint: Member must have length between 1 and 256`,
    );
  const bytes = Buffer.from(data, 'base64').length + Buffer.byteLength(partitionKey);
  if (bytes > maxRecordBytes)
    throw validation(
      `1 validation error detected: Value at '${where}data' failed to satisfy constraint: Member must have length less than or equal to ${maxRecordBytes}`,
    );
  const explicit = text(entry, 'ExplicitHashKey');
  const hashKey = explicit === undefined ? partitionKeyHash(partitionKey) : explicitHashKey(explicit);
  if (hashKey === undefined)
    throw invalid(
      `Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. Specified value was ${explicit}`,
    );
  return { data, partitionKey, index: shardIndexOf(hashKey, stream.shards.length) };
};

/** Appends a checked record to its shard; its shard id and sequence number, as PutRecord answers them. */
const append = (stream: StoredStream, record: ReturnType<typeof recordOf>, now: number) => {
  const shard = stream.shards[record.index] as StoredShard;
  shard.last += 1;
  shard.records = retained(stream, shard, now);
  shard.records.push({ place: shard.last, data: record.data, partitionKey: record.partitionKey, arrived: now });
  return { ShardId: shardId(record.index), SequenceNumber: sequenceNumber(record.index, shard.last) };
};

const putRecord = (store: Store) => (input: JsonInput) => {
  const { result, name } = changing(store, (state) => {
    const stream = streamOf(state, input);
    return { result: append(stream, recordOf(stream, input, ''), store.now()), name: stream.name };
  });
  store.appended.emit(streamArn(name));
  return result;
};

const putRecords = (store: Store) => (input: JsonInput) => {
  const entries = input.Records;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > maxPutRecords)
    throw validation(
      `1 validation error detected: Value at 'records' failed to satisfy constraint: Member must have length between 1 and ${maxPutRecords}`,
    );
  const { records, name } = changing(store, (state) => {
    const stream = streamOf(state, input);
    const checked = entries.map((entry: JsonInput, index) =>
      recordOf(stream, entry ?? {}, `records.${index + 1}.member.`),
    );
    const now = store.now();
    return { records: checked.map((record) => append(stream, record, now)), name: stream.name };
  });
  store.appended.emit(streamArn(name));
  return { FailedRecordCount: 0, Records: records };
};

/** What a shard iterator holds: the stream (by name and creation), the shard, the last place read, when issued. */
interface Iterator {
  stream: string;
  created: number;
  index: number;
  after: number;
  issued: number;
}

const iteratorText = (iterator: Iterator) =>
  Buffer.from(
    JSON.stringify([iterator.stream, iterator.created, iterator.index, iterator.after, iterator.issued]),
  ).toString('base64');

const iteratorOf = (given: string): Iterator => {
  try {
    const value: unknown = JSON.parse(Buffer.from(given, 'base64').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 5 &&
      typeof value[0] === 'string' &&
      value.slice(1).every(Number.isSafeInteger)
    ) {
      const [stream, created, index, after, issued] = value as [string, number, number, number, number];
      return { stream, created, index, after, issued };
    }
  } catch {}
  throw invalid(`Invalid ShardIterator.`);
};

/** The shard a GetShardIterator call names, by its ShardId. */
const shardNamed = (stream: StoredStream, id: string | undefined) => {
  const index = id === undefined ? undefined : shardIndexOfId(id);
  if (index === undefined || index >= stream.shards.length)
    throw new ServiceError(
      'ResourceNotFoundException',
      `Shard ${String(id)} in stream ${stream.name} under account ${localAws.accountId} does not exist`,
    );
  return index;
};

/** The place a sequence number of shard `index` names; InvalidArgumentException when it is not one of its own. */
const placeIn = (index: number, sequence: string | undefined) => {
  const found = sequence === undefined ? undefined : placeOf(sequence);
  if (!found || found.index !== index)
    throw invalid(
      `StartingSequenceNumber ${String(sequence)} used in GetShardIterator on shard ${shardId(index)} is not valid for this shard.`,
    );
  return found.place;
};

/** A time given in seconds (the JSON protocol's timestamps) or as ISO text, in epoch milliseconds. */
const timeOf = (value: unknown) => {
  const milliseconds = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(milliseconds)) throw invalid('Timestamp is required for AT_TIMESTAMP shard iterator type.');
  return milliseconds;
};

/** The last place read before the first record an iterator of `type` returns. */
const startAfter = (stream: StoredStream, index: number, input: JsonInput, now: number) => {
  const shard = stream.shards[index] as StoredShard;
  const kept = retained(stream, shard, now);
  switch (input.ShardIteratorType) {
    case 'TRIM_HORIZON':
      return (kept[0]?.place ?? shard.last + 1) - 1;
    case 'LATEST':
      return shard.last;
    case 'AT_SEQUENCE_NUMBER':
      return placeIn(index, text(input, 'StartingSequenceNumber')) - 1;
    case 'AFTER_SEQUENCE_NUMBER':
      return placeIn(index, text(input, 'StartingSequenceNumber'));
    case 'AT_TIMESTAMP': {
      const at = timeOf(input.Timestamp);
      return (kept.find((record) => record.arrived >= at)?.place ?? shard.last + 1) - 1;
    }
    default:
      throw validation(
        `1 validation error detected: Value '${String(input.ShardIteratorType)}' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, AT_TIMESTAMP, TRIM_HORIZON, LATEST]`,
      );
  }
};

const getShardIterator = (store: Store) => (input: JsonInput) => {
  const stream = streamOf(store.file.read(), input);
  const index = shardNamed(stream, text(input, 'ShardId'));
  const now = store.now();
  const after = startAfter(stream, index, input, now);
  return { ShardIterator: iteratorText({ stream: stream.name, created: stream.created, index, after, issued: now }) };
};

/** The records of `kept` after place `after`, at most `limit` of them and 10 MiB of data. */
const batchAfter = (kept: StoredRecord[], after: number, limit: number) => {
  const unread = kept.filter((record) => record.place > after);
  const batch: StoredRecord[] = [];
  let bytes = 0;
  for (const record of unread) {
    bytes += Buffer.from(record.data, 'base64').length;
    if (batch.length === limit || (batch.length > 0 && bytes > maxGetBytes)) break;
    batch.push(record);
  }
  return { batch, next: unread[batch.length] };
};

/**
 * GetRecords: the records after the iterator's place, the iterator of the next call (its place the last record
 * returned), and MillisBehindLatest: 0 when no record is left unread, else how long ago the first one left unread
 * arrived (the API reference: "how far behind current time the consumer is").
 */
const getRecords = (store: Store) => (input: JsonInput) => {
  const given = text(input, 'ShardIterator');
  if (given === undefined)
    throw validation(
      "1 validation error detected: Value null at 'shardIterator' failed to satisfy constraint: Member must not be null",
    );
  const iterator = iteratorOf(given);
  const limit = integer(input, 'Limit', 1, maxGetLimit, maxGetLimit);
  const now = store.now();
  if (now - iterator.issued > iteratorLifeMs)
    throw new ServiceError(
      'ExpiredIteratorException',
      `Iterator expired. The iterator was created at time ${new Date(iterator.issued).toUTCString()} while right now it is ${new Date(now).toUTCString()} which is further in the future than the tolerated delay of 300000 milliseconds.`,
    );
  const stream = store.file.read().streams.find((candidate) => candidate.name === iterator.stream);
  if (!stream || stream.created !== iterator.created || iterator.index >= stream.shards.length)
    throw notFound(iterator.stream);
  const { batch, next } = batchAfter(
    retained(stream, stream.shards[iterator.index] as StoredShard, now),
    iterator.after,
    limit,
  );
  const after = batch.at(-1)?.place ?? iterator.after;
  return {
    Records: batch.map((record) => ({
      SequenceNumber: sequenceNumber(iterator.index, record.place),
      ApproximateArrivalTimestamp: seconds(record.arrived),
      Data: record.data,
      PartitionKey: record.partitionKey,
    })),
    NextShardIterator: iteratorText({ ...iterator, after, issued: now }),
    MillisBehindLatest: next === undefined ? 0 : Math.max(0, now - next.arrived),
  };
};

/**
 * Creates each stream of the template that is not there, or that the template changed (its shards or mode: made
 * again, its records dropped, said); a changed retention period alone is applied. Lines to say at start.
 */
const seedStreams = (store: Store, seeds: (StreamSeed & { fingerprint: string })[]) => {
  const said: string[] = [];
  changing(store, (state) => {
    for (const seed of seeds) {
      const stream = state.streams.find((candidate) => candidate.name === seed.name);
      if (stream?.seeded === seed.fingerprint) continue;
      const count = seed.mode === 'ON_DEMAND' ? onDemandShards : seed.shardCount;
      if (stream && stream.mode === seed.mode && stream.shards.length === count) {
        stream.retentionHours = seed.retentionHours;
        stream.seeded = seed.fingerprint;
        continue;
      }
      if (stream)
        said.push(`${seed.source}: its stream ${seed.name} has other shards now: made again, its records dropped`);
      const made = newStream(seed.name, seed.mode, seed.shardCount, seed.retentionHours, store.now());
      state.streams = [
        ...state.streams.filter((candidate) => candidate !== stream),
        { ...made, seeded: seed.fingerprint },
      ];
    }
  });
  return said;
};

/** The local Kinesis on `file`: its service, its seeding, and who to tell when records arrive. */
export const kinesisDataStreams = (file: StateFile<KinesisState>, now: () => number = Date.now) => {
  const store: Store = { file: cachedState(file), now, appended: new EventEmitter().setMaxListeners(0) };
  const service: JsonService = {
    name: 'kinesis',
    targetPrefix: 'Kinesis_20131202',
    signingName: 'kinesis',
    http2: true,
    bodyLimit: maxRequestBytes,
    operations: {
      CreateStream: createStream(store),
      DeleteStream: deleteStream(store),
      DescribeStream: describeStream(store),
      DescribeStreamSummary: describeStreamSummary(store),
      ListStreams: listStreams(store),
      ListShards: listShards(store),
      PutRecord: putRecord(store),
      PutRecords: putRecords(store),
      GetShardIterator: getShardIterator(store),
      GetRecords: getRecords(store),
    },
  };
  return {
    service,
    seed: (seeds: (StreamSeed & { fingerprint: string })[]) => seedStreams(store, seeds),
    /** The streams, by name, with their shard count: the banner's. */
    streams: () => store.file.read().streams.map((stream) => ({ name: stream.name, shards: stream.shards.length })),
    /**
     * Calls `listener` each time records are written to the stream `arn` names (a stream poller wakes on it rather
     * than waiting for its next poll); the returned function stops it.
     */
    onAppend: (arn: string, listener: () => void) => {
      store.appended.on(arn, listener);
      return () => {
        store.appended.off(arn, listener);
      };
    },
  };
};
