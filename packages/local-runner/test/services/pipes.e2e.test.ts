// EventBridge pipes of our fixture app (fixtures/pipes-app.ts), served by the runner as "Amazon EventBridge Pipes"
// (EventBridge User Guide, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes.html) describes them:
// messages an SQS source's filter picks ("Event filtering in Amazon EventBridge Pipes", eb-pipes-event-filtering.html:
// an SQS message's body matched as JSON), each put through the target's input template ("Amazon EventBridge Pipes
// input transformation", eb-pipes-input-transformation.html), reach a state machine as one JSON array ("Amazon
// EventBridge Pipes batching and concurrency", eb-pipes-batching-concurrency.html: "Even if the batch size is 1, the
// request will be sent as a JSON array"); a DynamoDB stream's records reach a Lambda enrichment as an array, and the
// SQS target a message per enriched record; a Kinesis stream's records a filter picks (their data decoded as JSON)
// reach a Lambda function as one array, each record's `kinesis` members at its top, as "Amazon Kinesis stream as a
// source" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html) shows the event; a pipe
// whose DesiredState is STOPPED reads nothing. Each test waits for facts (messages long-polled, the runner's log
// lines), never for time.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { pipesApp, synthesizePipesApp } from '../fixtures/pipes-app.ts';

let dataDir: string | undefined;
let assembly: string | undefined;
let runner: Runner | undefined;
let sqs: SQSClient;
let dynamodb: DynamoDBClient;
let kinesis: KinesisClient;
const lines: string[] = [];
const said = new EventEmitter();
const say = (line: string) => {
  lines.push(line);
  said.emit('line');
};

/** The first line said that includes `text`, once said. */
const line = (text: string) =>
  new Promise<string>((resolve) => {
    const look = () => {
      const found = lines.find((l) => l.includes(text));
      if (found === undefined) return;
      said.off('line', look);
      resolve(found);
    };
    said.on('line', look);
    look();
  });

const urlOf = async (name: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;

/** The next `count` message bodies of the queue `name`, long-polled until they come. */
const received = async (name: string, count: number) => {
  const url = await urlOf(name);
  const bodies: string[] = [];
  while (bodies.length < count) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 5, MaxNumberOfMessages: 10 }),
    );
    bodies.push(...Messages.map(({ Body }) => String(Body)));
  }
  return bodies.map((body) => JSON.parse(body) as unknown);
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pipes-e2e-'));
  assembly = synthesizePipesApp();
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir,
    maxWorkers: 1,
    log: say,
    functionLog: (id, text) => say(`${id}: ${text}`),
  });
  const client = { region: localAws.region, credentials: localAws.credentials };
  sqs = new SQSClient({ ...client, endpoint: runner.serviceUrls.sqs });
  dynamodb = new DynamoDBClient({ ...client, endpoint: runner.databaseEndpoint });
  kinesis = new KinesisClient({ ...client, endpoint: runner.serviceUrls.kinesis });
}, 120_000);
afterAll(async () => {
  sqs?.destroy();
  dynamodb?.destroy();
  kinesis?.destroy();
  await runner?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (assembly) rmSync(join(assembly, '..'), { recursive: true, force: true });
}, 60_000);

test('an SQS source filtered, each record templated, to an express state machine as a JSON array', async () => {
  const url = await urlOf(pipesApp.orders);
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ kind: 'refund', id: 6 }) }));
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ kind: 'order', id: 7 }) }));
  // The state machine sent its input, the pipe's batch, to the queue: the order alone, templated.
  expect(await received(pipesApp.flowOut, 1)).toEqual([[{ order: 7, pipe: pipesApp.ordersPipe }]]);
  await line(`-> ${pipesApp.ordersPipe}: 1 filtered out`);
}, 60_000);

test('a DynamoDB stream enriched by a function, to an SQS queue a message per record', async () => {
  await dynamodb.send(new PutItemCommand({ TableName: pipesApp.table, Item: { id: { S: 'a' } } }));
  expect(await received(pipesApp.enriched, 1)).toEqual([{ id: 'a', enriched: true, batch: 1 }]);
}, 60_000);

test("a Kinesis stream's records filtered by their data, to a function as one array of records", async () => {
  const data = (value: unknown) => Buffer.from(JSON.stringify(value));
  await kinesis.send(
    new PutRecordsCommand({
      StreamName: pipesApp.clicks,
      Records: [
        { PartitionKey: 'p', Data: data({ page: 'about' }) },
        { PartitionKey: 'p', Data: data({ page: 'home' }) },
      ],
    }),
  );
  const printed = await line('PIPE-BATCH ');
  const records = JSON.parse(printed.slice(printed.indexOf('PIPE-BATCH ') + 11)) as Record<string, unknown>[];
  expect(records).toEqual([
    expect.objectContaining({
      eventSource: 'aws:kinesis',
      partitionKey: 'p',
      data: data({ page: 'home' }).toString('base64'),
    }),
  ]);
  expect(records[0]).not.toHaveProperty('kinesis');
}, 60_000);

test('a pipe whose DesiredState is STOPPED does not read its source', async () => {
  expect(await line(`pipe ${pipesApp.stoppedPipe}: DesiredState is STOPPED`)).toContain('Pipes/StoppedPipe');
});
