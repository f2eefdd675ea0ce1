// The DynamoDB Streams API (JSON 1.0, `X-Amz-Target: DynamoDBStreams_20120810.<Op>`, "Amazon DynamoDB Streams" in the
// DynamoDB API Reference): ListStreams, DescribeStream, GetShardIterator (TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER,
// AFTER_SEQUENCE_NUMBER) and GetRecords, served on the database's own port. A shard iterator is the stream, the shard
// and the position after which it reads, with the time it was given: it expires 15 minutes later, as AWS's do.
import { DatabaseError } from './database-error.ts';
import {
  recordKey,
  recordPrefix,
  retentionMs,
  type StreamMeta,
  type StreamRecord,
  sequenceText,
  sequenceValue,
} from './stream-log.ts';
import type { Streams } from './streams.ts';

type Input = Record<string, unknown>;

/** "A shard iterator expires 15 minutes after it is retrieved using the GetShardIterator action." */
const iteratorLifetimeMs = 15 * 60 * 1000;
const maxRecords = 1000;
/** GetShardIterator's types (DynamoDB Streams has no AT_TIMESTAMP, which Kinesis has). */
const iteratorTypes = ['TRIM_HORIZON', 'LATEST', 'AT_SEQUENCE_NUMBER', 'AFTER_SEQUENCE_NUMBER'];

interface Iterator {
  arn: string;
  shardId: string;
  /** Reads the records after this sequence number. */
  after: string;
  issued: number;
}

const encode = (iterator: Iterator) => Buffer.from(JSON.stringify(iterator)).toString('base64url');
const decode = (text: unknown): Iterator => {
  try {
    const iterator = JSON.parse(Buffer.from(String(text), 'base64url').toString()) as Iterator;
    if (typeof iterator.arn === 'string' && /^\d{21}$/.test(iterator.after)) return iterator;
  } catch {
    // refused below
  }
  throw new DatabaseError('ValidationException', 'Invalid ShardIterator');
};

const required = (input: Input, name: string) => {
  const value = input[name];
  if (typeof value !== 'string' || value === '')
    throw new DatabaseError(
      'ValidationException',
      `1 validation error detected: Value null at '${name}' failed to satisfy constraint: Member must not be null`,
    );
  return value;
};

const limitOf = (input: Input, max: number) => {
  const limit = input.Limit ?? max;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max)
    throw new DatabaseError('ValidationException', `Limit must be between 1 and ${max}`);
  return limit;
};

const streamOf = async (streams: Streams, arn: string) => {
  const meta = await streams.meta(arn);
  if (!meta)
    throw new DatabaseError('ResourceNotFoundException', `Requested resource not found: Stream: ${arn} not found`);
  return meta;
};

const shardOf = (meta: StreamMeta, shardId: string) => {
  if (shardId !== meta.shardId)
    throw new DatabaseError(
      'ResourceNotFoundException',
      `Requested resource not found: Shard: ${shardId} in Stream: ${meta.StreamArn} not found`,
    );
};

/** The first sequence number the stream still holds (those before were trimmed, or never written). */
const firstKept = async (streams: Streams, meta: StreamMeta) => {
  const now = Date.now();
  for await (const [, value] of streams.store.db.iterator({
    gte: recordPrefix(meta.StreamArn),
    lt: `${recordPrefix(meta.StreamArn)}\xff`,
  })) {
    const record = value as StreamRecord;
    if (record.dynamodb.ApproximateCreationDateTime * 1000 >= now - retentionMs) return record.dynamodb.SequenceNumber;
  }
  return undefined;
};

const listStreams = async (streams: Streams, input: Input) => {
  const limit = limitOf(input, 100);
  const start = input.ExclusiveStartStreamArn;
  const all = (await streams.metas()).filter(
    (meta) =>
      (input.TableName === undefined || meta.TableName === input.TableName) &&
      (typeof start !== 'string' || meta.StreamArn > start),
  );
  const page = all.slice(0, limit);
  return {
    Streams: page.map(({ StreamArn, TableName, StreamLabel }) => ({ StreamArn, TableName, StreamLabel })),
    ...(all.length > limit && { LastEvaluatedStreamArn: page.at(-1)?.StreamArn }),
  };
};

const describeStream = async (streams: Streams, input: Input) => {
  const meta = await streamOf(streams, required(input, 'StreamArn'));
  const first = (await firstKept(streams, meta)) ?? meta.startSequence;
  const shown = input.ExclusiveStartShardId === meta.shardId ? [] : [meta];
  return {
    StreamDescription: {
      StreamArn: meta.StreamArn,
      StreamLabel: meta.StreamLabel,
      StreamStatus: meta.disabledAt === undefined ? 'ENABLED' : 'DISABLED',
      StreamViewType: meta.StreamViewType,
      CreationRequestDateTime: meta.createdAt / 1000,
      TableName: meta.TableName,
      KeySchema: meta.KeySchema,
      Shards: shown.map(() => ({
        ShardId: meta.shardId,
        SequenceNumberRange: {
          StartingSequenceNumber: first,
          ...(meta.endSequence !== undefined && { EndingSequenceNumber: meta.endSequence }),
        },
      })),
    },
  };
};

const getShardIterator = async (streams: Streams, input: Input) => {
  const meta = await streamOf(streams, required(input, 'StreamArn'));
  shardOf(meta, required(input, 'ShardId'));
  const type = required(input, 'ShardIteratorType');
  if (!iteratorTypes.includes(type))
    throw new DatabaseError(
      'ValidationException',
      `ShardIteratorType ${type} is not one of ${iteratorTypes.join(', ')}`,
    );
  const position = async (): Promise<bigint> => {
    if (type === 'TRIM_HORIZON') return sequenceValue(meta.startSequence) - 1n;
    if (type === 'LATEST') return sequenceValue(meta.endSequence ?? streams.lastSequence);
    const given = input.SequenceNumber;
    if (typeof given !== 'string' || !/^1\d{20}$/.test(given))
      throw new DatabaseError('ValidationException', `${type} needs a SequenceNumber of this stream's, not ${given}`);
    const kept = await firstKept(streams, meta);
    if (kept !== undefined && BigInt(given) < BigInt(kept) && BigInt(given) >= BigInt(meta.startSequence))
      throw new DatabaseError(
        'TrimmedDataAccessException',
        `Sequence number ${given} is beyond the trim horizon of the shard`,
      );
    const at = sequenceValue(given);
    return type === 'AT_SEQUENCE_NUMBER' ? at - 1n : at;
  };
  const after = await position();
  return {
    ShardIterator: encode({
      arn: meta.StreamArn,
      shardId: meta.shardId,
      after: sequenceText(after),
      issued: Date.now(),
    }),
  };
};

const getRecords = async (streams: Streams, input: Input) => {
  const iterator = decode(required(input, 'ShardIterator'));
  const limit = limitOf(input, maxRecords);
  if (Date.now() - iterator.issued > iteratorLifetimeMs)
    throw new DatabaseError('ExpiredIteratorException', 'Iterator expired: it was given more than 15 minutes ago');
  const meta = await streamOf(streams, iterator.arn);
  const now = Date.now();
  const records: StreamRecord[] = [];
  for await (const [, value] of streams.store.db.iterator({
    gt: recordKey(meta.StreamArn, iterator.after),
    lt: `${recordPrefix(meta.StreamArn)}\xff`,
    limit,
  })) {
    const record = value as StreamRecord;
    if (record.dynamodb.ApproximateCreationDateTime * 1000 >= now - retentionMs) records.push(record);
  }
  const last = records.at(-1)?.dynamodb.SequenceNumber ?? iterator.after;
  // A disabled stream's shard is closed: read to its end, it gives no next iterator.
  const closed = meta.endSequence !== undefined && BigInt(last) >= BigInt(meta.endSequence);
  return {
    Records: records,
    ...(!closed && { NextShardIterator: encode({ ...iterator, after: last, issued: now }) }),
  };
};

/** The operations, by name. */
export const streamsOperations: Record<string, (streams: Streams, input: Input) => Promise<unknown>> = {
  ListStreams: listStreams,
  DescribeStream: describeStream,
  GetShardIterator: getShardIterator,
  GetRecords: getRecords,
};
