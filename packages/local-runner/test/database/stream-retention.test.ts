// A stream keeps its records 24 hours ("Change data capture for DynamoDB Streams",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html: "DynamoDB Streams ... stores this
// information in a log for up to 24 hours"; a disabled stream's records stay readable 24 hours, then it is gone).
// The streams' storage on dynalite's own store in memory, trimmed as if a day had passed.
import { describe, expect, test } from '@jest/globals';
import db from 'dynalite/db/index.js';
import { retentionMs } from '../../src/database/streams/stream-log.ts';
import { Streams, type TableRecord } from '../../src/database/streams/streams.ts';

const tableRecord = (): TableRecord => ({
  TableName: 'plants',
  TableArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/plants',
  TableId: 'one',
  TableStatus: 'ACTIVE',
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
});

const withRecords = async () => {
  const streams = await Streams.open(db.create({}));
  const table = tableRecord();
  await streams.enable(table, { viewType: 'KEYS_ONLY', label: '2026-01-01T00:00:00.000' });
  for (const id of ['a', 'b']) await streams.writeChanges([{ table, key: id, after: { id: { S: id } } }]);
  return { streams, table, arn: table.LatestStreamArn as string };
};

describe('retention', () => {
  test('records younger than 24 hours are kept; older ones trimmed, the stream kept while enabled', async () => {
    const { streams, arn } = await withRecords();
    await streams.trim(Date.now() + retentionMs - 60_000);
    expect(await streams.recordKeys(arn)).toHaveLength(2);
    await streams.trim(Date.now() + retentionMs + 60_000);
    expect(await streams.recordKeys(arn)).toEqual([]);
    expect(await streams.meta(arn)).toMatchObject({ StreamArn: arn });
  });

  test('a stream disabled more than 24 hours ago is gone, with its records', async () => {
    const { streams, table, arn } = await withRecords();
    await streams.disable(table, false);
    await streams.trim(Date.now() + retentionMs - 60_000);
    expect(await streams.meta(arn)).toMatchObject({ disabledAt: expect.any(Number) });
    await streams.trim(Date.now() + retentionMs + 60_000);
    expect(await streams.meta(arn)).toBeUndefined();
    expect(await streams.recordKeys(arn)).toEqual([]);
  });
});
