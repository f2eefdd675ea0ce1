// An event source mapping's FilterCriteria applied to random messages: the function gets exactly the messages whose
// body, parsed as JSON, an oracle written apart from the matcher keeps; every other message is deleted, none left in
// the queue ("Using event filtering with an Amazon SQS event source",
// https://docs.aws.amazon.com/lambda/latest/dg/with-sqs-filtering.html: the filter is on the `body` key, parsed when it
// is JSON; "Control which events Lambda sends to your function", invocation-eventfiltering.html: a record no filter
// matches is discarded, and for SQS the message deleted). A failure prints fast-check's seed: replay it with
// FC_SEED=<seed>.
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';
import type { Invoker } from '../../src/services/targets.ts';

/** The filter: `kind` of the body is "keep". */
const pattern = '{"body":{"kind":["keep"]}}';

/**
 * The oracle: whether the body is JSON holding, at `kind`, the text "keep" (itself, or in a list); an object in a list
 * counts as the list's own (Event Ruler's README, "JSON Array Matching"). A body that is not JSON is text: no `kind`.
 */
const keeps = (body: string) => {
  const kindIsKeep = (kind: unknown): boolean => kind === 'keep' || (Array.isArray(kind) && kind.some(kindIsKeep));
  const holds = (value: unknown): boolean =>
    Array.isArray(value)
      ? value.some(holds)
      : typeof value === 'object' && value !== null && kindIsKeep((value as { kind?: unknown }).kind);
  try {
    return holds(JSON.parse(body));
  } catch {
    return false;
  }
};

const kind = fc.constantFrom('keep', 'drop', 'Keep', 'keep ', '');
const body = fc.oneof(
  fc.record({ kind, n: fc.integer() }).map((value) => JSON.stringify(value)),
  fc.record({ kind: fc.array(kind, { maxLength: 2 }) }).map((value) => JSON.stringify(value)),
  fc.array(fc.record({ kind }), { maxLength: 2 }).map((value) => JSON.stringify(value)),
  fc.constantFrom('keep', '"keep"', 'kind: keep', '{"kind":"keep"', '{}', '[]', 'null', '7'),
  fc.string({ minLength: 1 }),
);

const delivered: string[] = [];
const log: string[] = [];
let checks: (() => void)[] = [];
const say = (line: string) => {
  log.push(line);
  for (const check of checks) check();
};
const invoke: Invoker = async (_target, event) => {
  delivered.push(...(event as { Records: { body: string }[] }).Records.map(({ body }) => body));
  return { invocation: { outcome: 'result', result: null }, durationMs: 0, initMs: undefined };
};

let services: Awaited<ReturnType<typeof startLocalServices>>;
let sqs: SQSClient;
let QueueUrl: string | undefined;
beforeAll(async () => {
  services = await startLocalServices({
    dataDir: undefined,
    seeds: {
      parameters: [],
      secrets: [],
      notices: [],
      queues: [{ source: 'App/Work', name: 'work', attributes: { VisibilityTimeout: '600' } }],
      mappings: [
        {
          source: 'App/Mapping',
          functionName: 'Handler',
          queueArn: queueArn('work'),
          enabled: true,
          batchSize: 10,
          windowSeconds: 0,
          filters: [pattern],
          reportFailures: false,
        },
      ],
    },
    log: say,
    invoke,
  });
  services.pollQueues();
  sqs = new SQSClient({ endpoint: services.urls.sqs, region: localAws.region, credentials: localAws.credentials });
  ({ QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'work' })));
});
afterAll(async () => {
  sqs.destroy();
  await services.close();
});

/** How many messages the log says were done with (delivered in a batch, or filtered out), in all. */
const doneWith = () =>
  log
    .map((line) => /batch of (\d+): ok|(\d+) filtered out/.exec(line))
    .reduce((sum, match) => sum + Number(match?.[1] ?? match?.[2] ?? 0), 0);

test('the function gets the messages whose parsed body the filter matches; the others are deleted', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 10 }), async (bodies) => {
      delivered.length = 0;
      const before = doneWith();
      const done = new Promise<void>((resolve) => {
        checks = [() => doneWith() - before >= bodies.length && resolve()];
      });
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl,
          Entries: bodies.map((MessageBody, index) => ({ Id: String(index), MessageBody })),
        }),
      );
      await done;
      expect(delivered.toSorted()).toEqual(bodies.filter(keeps).toSorted());
      const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
      expect([Attributes.ApproximateNumberOfMessages, Attributes.ApproximateNumberOfMessagesNotVisible]).toEqual([
        '0',
        '0',
      ]);
    }),
    { numRuns: 40 },
  );
});
