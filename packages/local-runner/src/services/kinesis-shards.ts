// How the local Kinesis (kinesis.ts) places records and numbers them, as the Kinesis Data Streams Developer Guide
// describes it ("Kinesis Data Streams terminology", https://docs.aws.amazon.com/streams/latest/dev/key-concepts.html):
// - a shard's hash key range: the 128-bit space [0, 2^128 - 1] split evenly between a stream's shards, as CreateStream
//   splits it (shard i from floor(i * 2^128 / n) to the next one's start - 1);
// - a record's shard: "Kinesis Data Streams uses MD5 to map partition keys to 128-bit integer values and to map
//   associated data records to shards using the hash key ranges of the shards" (MD5 of the key's UTF-8 bytes, read as
//   an unsigned big-endian integer), or its ExplicitHashKey (PutRecord, "ExplicitHashKey: The hash value used to
//   explicitly determine the shard the data record is assigned to by overriding the partition key hash");
// - its sequence number: digits, unique per stream, increasing per shard. Kinesis's are 56 digits whose layout is not
//   documented; here `49`, the shard's index in 6 digits, then the record's place in its shard in 48, so that two of a
//   shard's compare as numbers (and as text) in the order they were written.
import { createHash } from 'node:crypto';

/** 2^128: one past the highest hash key. */
const hashSpace = 1n << 128n;

export interface HashKeyRange {
  StartingHashKey: string;
  EndingHashKey: string;
}

/** The hash key range of shard `index` of `count`, as decimal text. */
export const hashKeyRange = (index: number, count: number): HashKeyRange => ({
  StartingHashKey: String((BigInt(index) * hashSpace) / BigInt(count)),
  EndingHashKey: String((BigInt(index + 1) * hashSpace) / BigInt(count) - 1n),
});

/** A partition key's hash key: its MD5 as a 128-bit unsigned integer. */
export const partitionKeyHash = (partitionKey: string) =>
  BigInt(`0x${createHash('md5').update(partitionKey, 'utf8').digest('hex')}`);

/** An ExplicitHashKey's value, or undefined when it is not a decimal integer in [0, 2^128 - 1]. */
export const explicitHashKey = (text: string) => {
  if (!/^\d{1,39}$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < hashSpace ? value : undefined;
};

/** The index of the shard of `count` whose range holds `hashKey`. */
export const shardIndexOf = (hashKey: bigint, count: number) => {
  for (let index = 0; index < count; index += 1)
    if (hashKey <= BigInt(hashKeyRange(index, count).EndingHashKey)) return index;
  return count - 1;
};

/** Shard `index`'s id: `shardId-` and the index in 12 digits, as Kinesis names a stream's first shards. */
export const shardId = (index: number) => `shardId-${String(index).padStart(12, '0')}`;

/** The index a shard id names, or undefined when it names none. */
export const shardIndexOfId = (id: string) => {
  const match = /^shardId-(\d{12})$/.exec(id);
  return match ? Number(match[1]) : undefined;
};

/** The sequence number of record `place` (1, 2, ...) of shard `index`; place 0 is the shard's starting one. */
export const sequenceNumber = (index: number, place: number) =>
  `49${String(index).padStart(6, '0')}${String(place).padStart(48, '0')}`;

/** The shard index and place a sequence number names, or undefined when it is none the local Kinesis gives. */
export const placeOf = (sequence: string) => {
  const match = /^49(\d{6})(\d{48})$/.exec(sequence);
  if (!match) return undefined;
  const place = Number(match[2]);
  return Number.isSafeInteger(place) ? { index: Number(match[1]), place } : undefined;
};
