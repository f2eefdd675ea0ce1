// Any input, whatever its shape, to any operation of the local Kinesis is answered: with the operation's output or
// with one of the errors the API reference lists for it (a ServiceError: ValidationException, InvalidArgumentException,
// ResourceNotFoundException, ...), never another exception (which the JSON server would answer 500 InternalFailure
// and log as a bug). Inputs mix the members each operation reads with values of every JSON type, and real values
// (the stream, its shards, its sequence numbers, an iterator) among them. A failure names the seed that replays it.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ServiceError } from '../../src/services/json-protocol.ts';
import { emptyStreams, kinesisDataStreams } from '../../src/services/kinesis.ts';
import { stateFile } from '../../src/services/state-file.ts';

const members = [
  'StreamName',
  'StreamARN',
  'ShardCount',
  'StreamModeDetails',
  'Records',
  'Data',
  'PartitionKey',
  'ExplicitHashKey',
  'ShardId',
  'ShardIteratorType',
  'StartingSequenceNumber',
  'Timestamp',
  'ShardIterator',
  'Limit',
  'MaxResults',
  'NextToken',
  'ExclusiveStartShardId',
  'ExclusiveStartStreamName',
  'ShardFilter',
];

test('no input makes an operation throw anything but a ServiceError', () => {
  const local = kinesisDataStreams(stateFile(undefined, 'kinesis', emptyStreams));
  local.seed([{ source: 'S/S', name: 's', mode: 'PROVISIONED', shardCount: 3, retentionHours: 24, fingerprint: 'f' }]);
  const { operations } = local.service;
  const call = (operation: string, given: Record<string, unknown>) => {
    const run = operations[operation];
    if (!run) throw new Error(`no operation ${operation}`);
    return run(given);
  };
  const put = call('PutRecord', { StreamName: 's', Data: 'eA==', PartitionKey: 'k' }) as { SequenceNumber: string };
  const { ShardIterator } = call('GetShardIterator', {
    StreamName: 's',
    ShardId: 'shardId-000000000000',
    ShardIteratorType: 'TRIM_HORIZON',
  }) as { ShardIterator: string };
  const real = fc.constantFrom<unknown>(
    's',
    'arn:aws:kinesis:us-east-1:000000000000:stream/s',
    'shardId-000000000001',
    put.SequenceNumber,
    ShardIterator,
    'TRIM_HORIZON',
    'AT_TIMESTAMP',
    'AFTER_SEQUENCE_NUMBER',
    'eA==',
    String(2n ** 128n - 1n),
    { StreamMode: 'ON_DEMAND' },
    { Type: 'AFTER_SHARD_ID', ShardId: 'shardId-000000000000' },
    [{ Data: 'eA==', PartitionKey: 'p' }],
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: real },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.integer() },
  );
  // Half of the inputs name the stream, so that the operations get past finding it.
  const input = fc
    .tuple(fc.boolean(), fc.dictionary(fc.constantFrom(...members), value, { maxKeys: 5 }))
    .map(([named, given]) => (named ? { ...given, StreamName: 's' } : given));
  const seed = Date.now();
  const thrown: string[] = [];
  for (const [operation, given] of fc.sample(fc.tuple(fc.constantFrom(...Object.keys(operations)), input), {
    seed,
    numRuns: 10_000,
  })) {
    try {
      call(operation, given);
    } catch (error) {
      if (!(error instanceof ServiceError)) thrown.push(`${operation} ${JSON.stringify(given)}: ${String(error)}`);
    }
  }
  expect({ seed, thrown: thrown.slice(0, 5) }).toEqual({ seed, thrown: [] });
});
