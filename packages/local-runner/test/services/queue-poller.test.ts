// An event source mapping's poller on the local SQS (in memory), with a function stood in for by an Invoker that
// answers as the test says: what Lambda reads of a partial batch response, and how many batches it runs at once.
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, expect, test } from '@jest/globals';
import type { QueueMapping } from '../../src/app/event-source-mappings.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { batchItemFailures } from '../../src/services/queue-poller.ts';
import { queueArn } from '../../src/services/sqs.ts';
import type { Invoker } from '../../src/services/targets.ts';

// "Handling errors for an SQS event source in Lambda", "Success and failure conditions"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html#sqs-batchfailurereporting-conditions).
test('a partial batch response: what Lambda reads as a complete success, a partial one, a complete failure', () => {
  const ids = ['m1', 'm2'];
  for (const success of [null, undefined, {}, { batchItemFailures: [] }, { batchItemFailures: null }])
    expect(batchItemFailures(success, ids)).toEqual({ failed: [] });
  expect(batchItemFailures({ batchItemFailures: [{ itemIdentifier: 'm2' }] }, ids)).toEqual({ failed: ['m2'] });
  const failures = [
    'not a batch response',
    [{ itemIdentifier: 'm1' }],
    { batchItemFailures: [{ itemIdentifier: '' }] },
    { batchItemFailures: [{ itemIdentifier: null }] },
    { batchItemFailures: [{ messageId: 'm1' }] },
    { batchItemFailures: [{ itemIdentifier: 'm3' }] },
  ];
  for (const failure of failures) expect(batchItemFailures(failure, ids)).toEqual({ error: expect.any(String) });
});

const mapping = (more: Partial<QueueMapping>): QueueMapping => ({
  source: 'App/Mapping',
  functionName: 'Handler',
  queueArn: queueArn('work'),
  enabled: true,
  batchSize: 10,
  windowSeconds: 0,
  filters: [],
  reportFailures: false,
  ...more,
});

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** The local services with the queue `work` and `mapping`, the function stood in for by `invoke`. */
const serve = async (more: Partial<QueueMapping>, invoke: Invoker) => {
  const log: string[] = [];
  const waiting: (() => void)[] = [];
  const say = (line: string) => {
    log.push(line);
    for (const check of waiting) check();
  };
  /** Resolves once `times` lines including `text` are logged. */
  const logged = (text: string, times = 1) =>
    new Promise<void>((resolve) => {
      const check = () => log.filter((line) => line.includes(text)).length >= times && resolve();
      waiting.push(check);
      check();
    });
  const services = await startLocalServices({
    dataDir: undefined,
    seeds: {
      parameters: [],
      secrets: [],
      notices: [],
      queues: [{ source: 'App/Work', name: 'work', attributes: { VisibilityTimeout: '600' } }],
      mappings: [mapping(more)],
    },
    log: say,
    invoke,
  });
  services.pollQueues();
  const sqs = new SQSClient({
    endpoint: services.urls.sqs,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  stop = async () => {
    sqs.destroy();
    await services.close();
  };
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'work' }));
  const send = (bodies: string[]) =>
    sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: bodies.map((MessageBody, index) => ({ Id: String(index), MessageBody })),
      }),
    );
  const counts = async () => {
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    return {
      visible: Attributes.ApproximateNumberOfMessages,
      inFlight: Attributes.ApproximateNumberOfMessagesNotVisible,
    };
  };
  return { logged, send, counts };
};

const answer = (result: unknown) => ({
  invocation: { outcome: 'result' as const, result },
  durationMs: 0,
  initMs: undefined,
});

// "Success and failure conditions": an itemIdentifier naming no message of the batch fails the whole batch.
test('a malformed partial batch response leaves the whole batch in flight, to come back', async () => {
  const { send, counts, logged } = await serve({ reportFailures: true }, async () =>
    answer({ batchItemFailures: [{ itemIdentifier: 'not-a-message' }] }),
  );
  await send(['a', 'b']);
  await logged('SQS work -> Handler: batch of 2: error');
  expect(await counts()).toEqual({ visible: '0', inFlight: '2' });
});

// "Configuring maximum concurrency for Amazon SQS event sources" (services-sqs-scaling.html#events-sqs-max-concurrency):
// at most MaximumConcurrency batches at once; the messages beyond stay in the queue, not taken.
test('ScalingConfig.MaximumConcurrency: at most that many batches at once', async () => {
  const held: (() => void)[] = [];
  let open = false;
  let reached: () => void = () => {};
  const two = new Promise<void>((resolve) => (reached = resolve));
  const { send, counts, logged } = await serve(
    { batchSize: 1, maximumConcurrency: 2 },
    () =>
      new Promise((resolve) => {
        if (open) return resolve(answer(null));
        held.push(() => resolve(answer(null)));
        if (held.length === 2) reached();
      }),
  );
  await send(['1', '2', '3', '4', '5']);
  await two;
  try {
    expect(await counts()).toEqual({ visible: '3', inFlight: '2' });
    expect(held).toHaveLength(2);
  } finally {
    open = true;
    for (const release of held.splice(0)) release();
  }
  await logged('SQS work -> Handler: batch of 1: ok', 5);
  expect(await counts()).toEqual({ visible: '0', inFlight: '0' });
});
