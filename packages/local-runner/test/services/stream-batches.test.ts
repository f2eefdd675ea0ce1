// What a stream poller reads of an invocation and of its records' ages (src/services/stream-batches.ts).
// "Configuring partial batch response with Kinesis Data Streams and Lambda"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html), "Success and failure
// conditions": an empty or null batchItemFailures, or an empty or null response, is a complete success; an
// itemIdentifier empty, null, or naming no record (a wrong key name) is a complete failure; with several, Lambda
// checkpoints at the lowest sequence number. "Lambda parameters for Amazon Kinesis Data Streams event source mappings"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-parameters.html): MaximumRecordAgeInSeconds -1 is no
// limit.
import { expect, test } from '@jest/globals';
import { decide, expiredCount, lowestFailure } from '../../src/services/stream-batches.ts';

const batch = ['101', '102', '103'];

test('ReportBatchItemFailures: the lowest sequence number named, whatever the order they are named in', () => {
  const failures = (...ids: unknown[]) => ({ batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })) });
  expect(lowestFailure(failures('103', '102'), batch)).toEqual({ failedAt: 1 });
  expect(lowestFailure(failures('101'), batch)).toEqual({ failedAt: 0 });
  for (const success of [null, undefined, {}, { batchItemFailures: [] }, { batchItemFailures: null }])
    expect(lowestFailure(success, batch)).toEqual({ ok: true });
  for (const failure of [
    failures(''),
    failures(null),
    failures('999'),
    { batchItemFailures: [{ id: '101' }] },
    'no',
    [],
  ])
    expect(lowestFailure(failure, batch)).toEqual({ error: expect.any(String) });
});

test('MaximumRecordAgeInSeconds: the records older than it, from the first; -1 none', () => {
  const now = 1_000_000;
  const arrivals = [now - 90_000, now - 61_000, now - 30_000, now];
  expect(expiredCount(arrivals, now, 60)).toBe(2);
  expect(expiredCount(arrivals, now, 100)).toBe(0);
  expect(expiredCount(arrivals, now, 0)).toBe(3);
  expect(expiredCount(arrivals, now, -1)).toBe(0);
});

// "Retain discarded batch records for a Kinesis Data Streams event source in Lambda" (kinesis-on-failure-destination.html).
test('a failed batch: bisected without a retry counted, retried, then discarded past MaximumRetryAttempts', () => {
  const policy = { bisect: true, maximumRetryAttempts: 1 };
  expect(decide([{ length: 5, attempts: 0 }], { error: 'x' }, policy)).toEqual({
    done: 0,
    discarded: 0,
    pieces: [
      { length: 3, attempts: 0 },
      { length: 2, attempts: 0 },
    ],
  });
  expect(decide([{ length: 1, attempts: 0 }], { error: 'x' }, policy)).toEqual({
    done: 0,
    discarded: 0,
    pieces: [{ length: 1, attempts: 1 }],
  });
  expect(
    decide(
      [
        { length: 1, attempts: 1 },
        { length: 2, attempts: 0 },
      ],
      { error: 'x' },
      policy,
    ),
  ).toEqual({
    done: 0,
    discarded: 1,
    pieces: [{ length: 2, attempts: 0 }],
  });
  expect(decide([{ length: 4, attempts: 0 }], { failedAt: 1 }, policy)).toEqual({
    done: 1,
    discarded: 0,
    pieces: [{ length: 3, attempts: 1 }],
  });
  expect(decide([{ length: 4, attempts: 0 }], { error: 'x' }, { bisect: false, maximumRetryAttempts: -1 })).toEqual({
    done: 0,
    discarded: 0,
    pieces: [{ length: 4, attempts: 1 }],
  });
});
