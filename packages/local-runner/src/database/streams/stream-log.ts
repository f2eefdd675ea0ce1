// The streams' storage, in the database's own LevelDB beside dynalite's tables (so a record is written in the same
// batch as the change it describes, "Change data capture for DynamoDB Streams": "DynamoDB Streams writes a stream
// record ... in near-real time"): each stream's description under `stream~<arn>`, each record under
// `streamrecord~<arn>~<sequence number>`, the last sequence number given under `streams~sequence`. One shard per
// stream; sequence numbers are 21 digits, increasing across every stream, so their text orders as their number.
import { createHash } from 'node:crypto';

/** The four views of StreamSpecification ("StreamSpecification", DynamoDB API Reference). */
export const viewTypes = ['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES'] as const;
export type ViewType = (typeof viewTypes)[number];

export type Item = Record<string, Record<string, unknown>>;

/** A stream as it is stored: what DescribeStream tells of it. */
export interface StreamMeta {
  StreamArn: string;
  StreamLabel: string;
  StreamViewType: ViewType;
  TableName: string;
  KeySchema: { AttributeName: string; KeyType: string }[];
  /** When it was enabled, milliseconds. */
  createdAt: number;
  shardId: string;
  /** The first sequence number it may hold. */
  startSequence: string;
  /** When it was disabled (its table's stream turned off, or the table deleted), and the last number it may hold. */
  disabledAt?: number;
  endSequence?: string;
}

/** A stream record, as GetRecords gives it ("Record", DynamoDB Streams API Reference). */
export interface StreamRecord {
  eventID: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  eventVersion: '1.1';
  eventSource: 'aws:dynamodb';
  awsRegion: string;
  dynamodb: {
    /** Seconds since the epoch, as the JSON protocol writes a timestamp. */
    ApproximateCreationDateTime: number;
    Keys: Item;
    NewImage?: Item;
    OldImage?: Item;
    SequenceNumber: string;
    SizeBytes: number;
    StreamViewType: ViewType;
  };
  /** A deletion DynamoDB made itself (an expired item's): "Service", "dynamodb.amazonaws.com". */
  userIdentity?: { PrincipalId: string; Type: string };
}

/** How long a record is kept ("DynamoDB Streams ... stores this information in a log for up to 24 hours"). */
export const retentionMs = 24 * 60 * 60 * 1000;

export const metaKey = (arn: string) => `stream~${arn}`;
export const recordPrefix = (arn: string) => `streamrecord~${arn}~`;
export const recordKey = (arn: string, sequence: string) => `${recordPrefix(arn)}${sequence}`;
export const sequenceKey = 'streams~sequence';
export const metaPrefix = 'stream~';

/** Sequence number `n` as its 21 digits (the first a 1, as the numbers AWS gives are as long and never start at 0). */
export const sequenceText = (n: bigint) => (10n ** 20n + n).toString();
export const sequenceValue = (text: string) => BigInt(text) - 10n ** 20n;

/**
 * A stream label: the time it was created, ISO 8601 without the zone, as `LatestStreamLabel` shows it
 * ("2015-05-11T21:21:33.291"). A table of the template gets `templateStreamLabel`, so that its stream's ARN is known
 * before the database starts (`Fn::GetAtt StreamArn`, app/return-values.ts).
 */
export const streamLabel = (at: Date) => at.toISOString().slice(0, -1);
export const templateStreamLabel = '1970-01-01T00:00:00.000';

/** `shardId-<20 digits of its creation time>-<8 hex>`, the shape DescribeStream shows AWS's in. */
export const shardIdOf = (arn: string, createdAt: number) =>
  `shardId-${String(createdAt).padStart(20, '0')}-${createHash('sha256').update(arn).digest('hex').slice(0, 8)}`;

/** An item's attributes named by the key schema: the record's `Keys`. */
export const keysOf = (item: Item, keySchema: StreamMeta['KeySchema']): Item =>
  Object.fromEntries(keySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName] ?? {}]));

/** A value with its maps' keys sorted and its sets' members sorted: two items alike compare equal as text. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => {
        const member = (value as Record<string, unknown>)[key];
        const isSet = (key === 'SS' || key === 'NS' || key === 'BS') && Array.isArray(member);
        return [key, isSet ? [...(member as string[])].sort() : canonical(member)];
      }),
  );
};

/** Whether a write changes the item ("If you perform a PutItem or UpdateItem operation that does not change any data"). */
export const changes = (before: Item | undefined, after: Item | undefined) =>
  JSON.stringify(canonical(before ?? null)) !== JSON.stringify(canonical(after ?? null));
