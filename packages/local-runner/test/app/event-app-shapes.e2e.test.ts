// Event-fed functions in the shapes public CDK apps showed (test/README.md names them; the apps themselves were
// served in a temporary folder, never committed), served as their READMEs say to exercise them: a request to the
// API, whose function sends the message, and the effect the message has downstream.
// - "Using Lambda with Amazon SQS" (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html): the event source
//   mapping polls the queue and invokes the function with a batch of records, each with its body and message
//   attributes; DelaySeconds keeps a message invisible for that long ("Amazon SQS delay queues",
//   https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-delay-queues.html).
// - "Amazon EventBridge event patterns" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns.html)
//   and "Comparison operators for use in event patterns in Amazon EventBridge"
//   (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html: prefix, anything-but):
//   each rule whose pattern matches an event sends it to its target, once per matching rule.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, GetItemCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, test } from '@jest/globals';
import { eventFedIds, synthesizeEventFedApp } from '../fixtures/event-fed-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

/** The node_modules folder holding `aws-sdk` (2.1001.0): the SDK v2 Lambda's nodejs16.x runtime provides. */
const installedPackages = join(dirname(fileURLToPath(import.meta.resolve('aws-sdk/package.json'))), '..');

const runner = servedBeforeAll(synthesizeEventFedApp, { runtimeSdk: installedPackages });

describe('a webhook queueing what it is sent, a function fed by the queue storing it (the-scalable-webhook)', () => {
  test('a request is answered with the message id; the message, a second later, is stored under its attribute', async () => {
    const response = await fetch(`${runner.urlOf(eventFedIds.webhook)}/hello`);
    expect({ status: response.status, body: await response.text() }).toEqual({
      status: 200,
      body: expect.stringMatching(/^queued [0-9a-f-]{36}$/),
    });
    const stored = /\sstored (\S+): queued from \/hello$/;
    await runner.functionLog.seen(stored);
    const [, key] = runner.functionLog.lines.map((line) => stored.exec(line)).find(Boolean) ?? [];
    const database = new DynamoDBClient({ endpoint: runner.api.databaseEndpoint, region: 'us-east-1' });
    const { TableNames: names = [] } = await database.send(new ListTablesCommand({}));
    const TableName = names.find((name) => name.includes(eventFedIds.table));
    const { Item: item } = await database.send(new GetItemCommand({ TableName, Key: { id: { S: key ?? '' } } }));
    expect(item).toEqual({ id: { S: key }, message: { S: 'queued from /hello' } });
  });
});

describe('transactions put on the default bus, three rules each sending its own to a function (the-eventbridge-atm)', () => {
  test('one request puts three events; each rule sends the events it matches to its function', async () => {
    const said = (rule: string, id: string) => runner.functionLog.seen(new RegExp(`\\s${rule} transaction ${id}$`));
    const response = await fetch(`${runner.urlOf(eventFedIds.tills)}/`);
    expect({ status: response.status, body: await response.text() }).toEqual({
      status: 200,
      body: 'failed entries: 0',
    });
    await Promise.all([
      said('approved', 'tx-1'),
      said('approved', 'tx-2'),
      said('new-york', 'tx-2'),
      said('new-york', 'tx-3'),
      said('not-approved', 'tx-3'),
    ]);
    const deliveries = runner.functionLog.lines
      .map((line) => /\s((?:approved|new-york|not-approved) transaction tx-\d)$/.exec(line)?.[1])
      .filter((line) => line !== undefined);
    expect(deliveries.toSorted()).toEqual([
      'approved transaction tx-1',
      'approved transaction tx-2',
      'new-york transaction tx-2',
      'new-york transaction tx-3',
      'not-approved transaction tx-3',
    ]);
  });
});
