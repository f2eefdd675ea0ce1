// A stream mapping's poller reads its stream as Lambda's pollers do: over the stream service's own API, on loopback
// (HTTP/1.1, fetch), signed with SigV4 by the runner's credentials. Kinesis Data Streams speaks JSON 1.1 with
// `X-Amz-Target: Kinesis_20131202.<operation>` ("Amazon Kinesis Data Streams API Reference"), DynamoDB Streams JSON 1.0
// with `X-Amz-Target: DynamoDBStreams_20120810.<operation>` ("Amazon DynamoDB Streams API Reference"). This module
// hides the two services' differences from the poller: how shards are listed (ListShards, DescribeStream), how a stream
// is named in a call (StreamARN, StreamArn), how GetShardIterator takes a sequence number (StartingSequenceNumber,
// SequenceNumber), and what a record is to Lambda (its event record, its sequence number, its
// arrival, its partition key, and what a filter sees of it).
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../app/local-aws.ts';
import { Sha256 } from '../gateway/sigv4.ts';

/** An error the stream service answered: its type (`__type`, without its namespace) and its HTTP status. */
export class StreamApiError extends Error {
  override name = 'StreamApiError';
  readonly type: string;
  readonly status: number;
  constructor(type: string, message: string, status: number) {
    super(`${type}: ${message}`);
    this.type = type;
    this.status = status;
  }
}

/** A shard as the stream lists it. */
export interface ListedShard {
  id: string;
  parent?: string;
  /** The shard holds no more records to come (its sequence number range has an end). */
  closed: boolean;
}

/** A record as the poller handles it. */
export interface PolledRecord {
  sequenceNumber: string;
  /** When it reached the stream (epoch ms). */
  arrival: number;
  /** What a ParallelizationFactor's partitions are chosen by: the partition key, or the item's keys. */
  partitionKey: string;
  /** The record as the function gets it, in the event's `Records`. */
  event: Record<string, unknown>;
  /** The record as FilterCriteria's patterns see it. */
  filtered: unknown;
}

/** Where GetShardIterator starts: a position of StartingPosition's, or after a sequence number. */
export type IteratorStart =
  | { type: 'TRIM_HORIZON' | 'LATEST' }
  | { type: 'AT_TIMESTAMP'; timestamp: number }
  | { type: 'AFTER_SEQUENCE_NUMBER'; sequenceNumber: string };

type Json = Record<string, unknown>;

const services = {
  kinesis: {
    target: 'Kinesis_20131202',
    signing: 'kinesis',
    contentType: 'application/x-amz-json-1.1',
    arn: 'StreamARN',
    sequenceNumber: 'StartingSequenceNumber',
    /** GetRecords' largest Limit ("GetRecords", Amazon Kinesis Data Streams API Reference). */
    maxLimit: 10_000,
  },
  dynamodb: {
    target: 'DynamoDBStreams_20120810',
    signing: 'dynamodb',
    contentType: 'application/x-amz-json-1.0',
    arn: 'StreamArn',
    sequenceNumber: 'SequenceNumber',
    /** GetRecords' largest Limit ("GetRecords", Amazon DynamoDB Streams API Reference). */
    maxLimit: 1000,
  },
} as const;

/** The role a local function runs as, as a Kinesis record's invokeIdentityArn names it. */
const invokeIdentityArn = `arn:${localAws.partition}:iam::${localAws.accountId}:role/local-function-role`;

/** Data as a filter sees it: the JSON it holds, parsed ("Using event filtering with a Kinesis event source"), else its text. */
const decoded = (data: string): unknown => {
  try {
    return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as unknown;
  } catch {
    return data;
  }
};

/** A Kinesis record, as Lambda's event has it ("Using Lambda with Kinesis Data Streams", its example event). */
const kinesisRecord = (record: Json, shardId: string, streamArn: string): PolledRecord => {
  const sequenceNumber = String(record.SequenceNumber);
  const arrivalSeconds = Number(record.ApproximateArrivalTimestamp);
  const kinesis = {
    kinesisSchemaVersion: '1.0',
    partitionKey: String(record.PartitionKey),
    sequenceNumber,
    data: String(record.Data),
    approximateArrivalTimestamp: arrivalSeconds,
  };
  const event = {
    kinesis,
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${shardId}:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn,
    awsRegion: localAws.region,
    eventSourceARN: streamArn,
  };
  return {
    sequenceNumber,
    arrival: arrivalSeconds * 1000,
    partitionKey: kinesis.partitionKey,
    event,
    filtered: { ...event, ...kinesis, data: decoded(kinesis.data) },
  };
};

/** A DynamoDB stream record, as Lambda's event has it ("Using Lambda with DynamoDB": the stream's, with its ARN). */
const dynamodbRecord = (record: Json, streamArn: string): PolledRecord => {
  const dynamodb = (record.dynamodb ?? {}) as Json;
  const event = { ...record, eventSourceARN: streamArn };
  return {
    sequenceNumber: String(dynamodb.SequenceNumber),
    arrival: Number(dynamodb.ApproximateCreationDateTime) * 1000,
    partitionKey: JSON.stringify(dynamodb.Keys ?? {}),
    event,
    filtered: event,
  };
};

/** How the poller calls the service of `kind` at `url`: a JSON call, signed as an SDK signs it. */
const callerOf = (kind: 'kinesis' | 'dynamodb', url: string) => {
  const service = services[kind];
  const signer = new SignatureV4({
    credentials: localAws.credentials,
    region: localAws.region,
    service: service.signing,
    sha256: Sha256,
  });
  return async (operation: string, input: Json): Promise<Json> => {
    const endpoint = new URL(url);
    const body = JSON.stringify(input);
    const signed = await signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: Number(endpoint.port),
      path: endpoint.pathname,
      query: {},
      headers: {
        host: endpoint.host,
        'content-type': service.contentType,
        'x-amz-target': `${service.target}.${operation}`,
      },
      body,
    });
    const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
    const response = await fetch(endpoint, { method: 'POST', headers, body });
    const answer = (await response.json().catch(() => ({}))) as Json;
    if (!response.ok) {
      const type = String(answer.__type ?? `HTTP ${response.status}`).replace(/^.*#/, '');
      throw new StreamApiError(type, String(answer.message ?? answer.Message ?? ''), response.status);
    }
    return answer;
  };
};

/** The stream `streamArn` of `kind`, read over the service's API at `url`. */
export const streamClient = (kind: 'kinesis' | 'dynamodb', url: string, streamArn: string) => {
  const service = services[kind];
  const call = callerOf(kind, url);
  const named = { [service.arn]: streamArn };
  return {
    /** Every shard of the stream. */
    shards: () => (kind === 'kinesis' ? kinesisShards(call, named) : dynamodbShards(call, named)),
    /** An iterator of `shardId` from `start`. */
    iterator: async (shardId: string, start: IteratorStart) => {
      const position =
        start.type === 'AT_TIMESTAMP'
          ? { Timestamp: start.timestamp }
          : start.type === 'AFTER_SEQUENCE_NUMBER'
            ? { [service.sequenceNumber]: start.sequenceNumber }
            : {};
      const answer = await call('GetShardIterator', {
        ...named,
        ShardId: shardId,
        ShardIteratorType: start.type,
        ...position,
      });
      return String(answer.ShardIterator);
    },
    /** Up to `limit` records from `iterator`, and the next iterator (none: the shard is closed and read to its end). */
    records: async (shardId: string, iterator: string, limit: number) => {
      const answer = await call('GetRecords', { ShardIterator: iterator, Limit: Math.min(limit, service.maxLimit) });
      const records = Array.isArray(answer.Records) ? (answer.Records as Json[]) : [];
      return {
        records: records.map((record) =>
          kind === 'kinesis' ? kinesisRecord(record, shardId, streamArn) : dynamodbRecord(record, streamArn),
        ),
        next: typeof answer.NextShardIterator === 'string' ? answer.NextShardIterator : undefined,
      };
    },
  };
};

export type StreamClient = ReturnType<typeof streamClient>;

type Call = (operation: string, input: Json) => Promise<Json>;

const listed = (shard: Json): ListedShard => {
  const range = (shard.SequenceNumberRange ?? {}) as Json;
  return {
    id: String(shard.ShardId),
    ...(typeof shard.ParentShardId === 'string' && { parent: shard.ParentShardId }),
    closed: range.EndingSequenceNumber !== undefined && range.EndingSequenceNumber !== null,
  };
};

/** Kinesis's ListShards, page after page (NextToken). */
const kinesisShards = async (call: Call, named: Json) => {
  const shards: ListedShard[] = [];
  let token: string | undefined;
  do {
    const answer = await call('ListShards', token === undefined ? named : { NextToken: token });
    shards.push(...((answer.Shards ?? []) as Json[]).map(listed));
    token = typeof answer.NextToken === 'string' ? answer.NextToken : undefined;
  } while (token !== undefined);
  return shards;
};

/** DynamoDB Streams' DescribeStream, page after page (LastEvaluatedShardId). */
const dynamodbShards = async (call: Call, named: Json) => {
  const shards: ListedShard[] = [];
  let after: string | undefined;
  do {
    const answer = await call('DescribeStream', {
      ...named,
      ...(after !== undefined && { ExclusiveStartShardId: after }),
    });
    const description = (answer.StreamDescription ?? {}) as Json;
    shards.push(...((description.Shards ?? []) as Json[]).map(listed));
    after = typeof description.LastEvaluatedShardId === 'string' ? description.LastEvaluatedShardId : undefined;
  } while (after !== undefined);
  return shards;
};
