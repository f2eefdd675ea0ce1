// EventBridge as an app's functions and the user's SDK reach it, on the whole runner serving a CDK app
// (fixtures/events-app.ts): a function puts an event with the SDK's EventBridge client (found through
// AWS_ENDPOINT_URL_EVENTBRIDGE, "Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html), the rule's pattern matches it, and
// its TypeScript and Python functions are invoked with the event ("Amazon EventBridge events",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events.html) while its queue gets the InputTransformer's
// output ("Amazon EventBridge input transformation",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html). A custom bus's rule sees
// its own events; an event no rule matches reaches nothing; a target's refusal lands in its DLQ with the documented
// attributes ("Event retry policy and using dead-letter queues",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBridgeClient, ListRulesCommand, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName, generatedRuleName, ruleArn } from '../../src/app/return-values.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { eventsApp, synthesizeEventsApp } from '../fixtures/events-app.ts';
import { localClient } from '../helpers/local-clients.ts';
import { jsonLine, servedBeforeAll } from '../helpers/served-app.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-eventbridge/package.json'))),
  '../..',
);

const runner = servedBeforeAll(synthesizeEventsApp, { runtimeSdk: installedPackages });
let events: EventBridgeClient;
let sqs: SQSClient;
beforeAll(() => {
  events = localClient(EventBridgeClient, runner.api.serviceUrls.events);
  sqs = localClient(SQSClient, runner.api.serviceUrls.sqs);
});
afterAll(() => {
  events?.destroy();
  sqs?.destroy();
});

/** The runner's log. */
const log = runner.log.lines;

/** The JSON line `fn` logs about an event that `picks` (from the `from`th line of the functions' log on), once it has. */
const loggedWith = (fn: string, picks: (event: { id?: string; source?: string }) => boolean, from = 0) =>
  runner.functionLog.picked((text) => {
    const entry = jsonLine(text);
    return entry?.fn === fn && picks((entry.line.event ?? {}) as { id?: string; source?: string })
      ? entry.line
      : undefined;
  }, from);

/** The line `fn` logs about the event `id`, once it has. */
const loggedFor = (fn: string, id: string) => loggedWith(fn, (event) => event.id === id);

/** The messages a queue gets within a long poll (answered as soon as one is there). */
const received = async (name: string) => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20, MessageAttributeNames: ['All'] }),
  );
  return Messages;
};

test("an event a function puts reaches the rule's TypeScript and Python functions, and its queue transformed", async () => {
  const url = runner.api.apis.find(({ app }) => app.apiId.startsWith('Publisher'))?.url;
  const detail = { name: 'Monstera', price: 25 };
  const response = await fetch(`${url}/`, { method: 'POST', body: JSON.stringify(detail) });
  const body = await response.text();
  expect({ status: response.status, log: response.status === 200 ? [] : log }).toEqual({ status: 200, log: [] });
  const { entries, failed } = JSON.parse(body) as { entries: { EventId: string }[]; failed: number };
  expect(failed).toBe(0);
  const id = entries[0]?.EventId as string;
  const [typescript, python] = await Promise.all([loggedFor('OnPlant', id), loggedFor('OnPlantPython', id)]);
  const event = {
    version: '0',
    id,
    'detail-type': 'Plant Created',
    source: 'plant.store',
    account: localAws.accountId,
    time: expect.stringMatching(/Z$/),
    region: localAws.region,
    resources: [],
    detail,
  };
  expect(typescript).toEqual({ target: 'typescript', event });
  expect(python).toEqual({ target: 'python', event });
  const messages = await received(eventsApp.seen);
  expect(messages.map(({ Body }) => JSON.parse(Body ?? ''))).toEqual([
    { plant: 'Monstera', price: 25, rule: `from ${generatedRuleName(eventsApp.stack, 'PlantCreated')}`, id },
  ]);
  expect(log).toContain(
    `EventBridge: rule ${generatedRuleName(eventsApp.stack, 'PlantCreated')} (bus default): event ${id} -> Target2 (${queueArn(eventsApp.seen)})`,
  );
});

test('an event the pattern does not match (price 5, not > 10) reaches no target', async () => {
  const { Entries } = await events.send(
    new PutEventsCommand({ Entries: [{ Source: 'plant.store', DetailType: 'Plant Created', Detail: '{"price":5}' }] }),
  );
  expect(log).toContain(
    `EventBridge: event ${Entries?.[0]?.EventId} (plant.store, Plant Created) on bus default: no rule matched`,
  );
});

test("the custom bus's rule sees the events put on it, and sends their detail (InputPath $.detail)", async () => {
  const { FailedEntryCount } = await events.send(
    new PutEventsCommand({
      Entries: [{ Source: 'shop', DetailType: 'Order Placed', Detail: '{"order":7}', EventBusName: eventsApp.bus }],
    }),
  );
  expect(FailedEntryCount).toBe(0);
  expect((await received(eventsApp.ordersSeen)).map(({ Body }) => Body)).toEqual(['{"order":7}']);
  const { Rules = [] } = await events.send(new ListRulesCommand({ EventBusName: eventsApp.bus }));
  expect(Rules.map(({ Name, Arn }) => ({ Name, Arn }))).toEqual([
    {
      Name: generatedRuleName(eventsApp.stack, 'OrderPlaced'),
      Arn: ruleArn(eventsApp.bus, generatedRuleName(eventsApp.stack, 'OrderPlaced')),
    },
  ]);
});

test('an event its target queue refuses (over 1,024 bytes) goes to the DLQ, with RULE_ARN, TARGET_ARN, ERROR_CODE, ERROR_MESSAGE', async () => {
  const { Entries } = await events.send(
    new PutEventsCommand({
      Entries: [{ Source: 'big', DetailType: 'Big', Detail: JSON.stringify({ text: 'x'.repeat(1200) }) }],
    }),
  );
  const [message] = await received(eventsApp.undelivered);
  expect(JSON.parse(message?.Body ?? '')).toMatchObject({ id: Entries?.[0]?.EventId, source: 'big' });
  const attributes = Object.fromEntries(
    Object.entries(message?.MessageAttributes ?? {}).map(([name, { StringValue }]) => [name, StringValue]),
  );
  expect(attributes).toMatchObject({
    RULE_ARN: ruleArn('default', generatedRuleName(eventsApp.stack, 'TooBig')),
    TARGET_ARN: queueArn(eventsApp.small),
    ERROR_CODE: 'SDK_CLIENT_ERROR',
    ERROR_MESSAGE: expect.stringContaining('InvalidParameterValue'),
    // retryAttempts: 0 (RetryPolicy.MaximumRetryAttempts 0): no retry before the DLQ.
    EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttemptsExhausted',
    RETRY_ATTEMPTS: '0',
  });
});

test("a schedule rule fired now (the clock's `fire`) invokes its function with the Scheduled Event", async () => {
  const rule = generatedRuleName(eventsApp.stack, 'Nightly');
  const firing = loggedWith('OnPlant', (event) => event.source === 'aws.events', runner.functionLog.lines.length);
  expect(await runner.api.schedules.fire(rule)).toBe(`rule default/${rule}`);
  // "Creating a rule that runs on a schedule in Amazon EventBridge": detail-type Scheduled Event, source aws.events.
  expect(await firing).toEqual({
    target: 'typescript',
    event: expect.objectContaining({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      resources: [ruleArn('default', rule)],
      detail: {},
    }),
  });
});

test('the banner lists each bus with its rules and their targets; a schedule rule with its expression', () => {
  const rule = (id: string) => generatedRuleName(eventsApp.stack, id);
  const lines = runner.api.eventBridge();
  expect(lines).toContain(`bus ${eventsApp.bus} (arn:aws:events:us-east-1:000000000000:event-bus/${eventsApp.bus})`);
  expect(lines).toContain(`  rule ${rule('OrderPlaced')} -> Target0 ${queueArn(eventsApp.ordersSeen)}`);
  expect(lines).toContain(
    `  rule ${rule('Nightly')} cron(0 3 * * ? *) -> Target0 arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName(eventsApp.stack, 'OnPlant')}`,
  );
});
