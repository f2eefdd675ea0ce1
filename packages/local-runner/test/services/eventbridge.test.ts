// The local EventBridge, driven by the AWS SDK v3 client unchanged over its JSON protocol, with the local SQS as a real
// target and a recording `lambda` receiver standing for the runner's asynchronous invocation (the whole runner, with
// real functions, is eventbridge.e2e.test.ts). Pages: "PutEvents" and "PutEventsResultEntry" (Amazon EventBridge API
// Reference, https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html), "Amazon EventBridge
// event buses" (the default bus and custom ones), "Event bus targets" (a bus as a rule's target), "Event retry policy
// and using dead-letter queues" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html), and
// "Creating a rule that runs on a schedule" (the Scheduled Event).
import {
  DescribeEventBusCommand,
  DescribeRuleCommand,
  EventBridgeClient,
  ListEventBusesCommand,
  ListRulesCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  type PutEventsRequestEntry,
  TestEventPatternCommand,
} from '@aws-sdk/client-eventbridge';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import type { EventSeeds, RuleSeed } from '../../src/app/eventbridge-resources.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { eventBusArn, ruleArn } from '../../src/app/return-values.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { Targets } from '../../src/services/targets.ts';

const functionArn = (name: string) => `arn:aws:lambda:${localAws.region}:${localAws.accountId}:function:${name}`;

const rule = (name: string, more: Partial<RuleSeed>): RuleSeed => ({
  source: `App/${name}`,
  name,
  bus: 'default',
  state: 'ENABLED',
  targets: [],
  ...more,
});

const events: EventSeeds = {
  buses: [{ source: 'App/Orders', name: 'orders' }],
  rules: [
    rule('PlantCreated', {
      pattern: {
        source: ['plant.store'],
        'detail-type': ['Plant Created'],
        detail: { price: [{ numeric: ['>', 10] }] },
      },
      targets: [
        { id: 'Fn', arn: functionArn('OnPlant') },
        {
          id: 'Queue',
          arn: queueArn('plants'),
          inputTransformer: {
            inputPathsMap: { name: '$.detail.name', price: '$.detail.price' },
            inputTemplate: '{"plant": <name>, "price": <price>, "rule": <aws.events.rule-name>}',
          },
        },
      ],
    }),
    rule('ToOrders', { pattern: { source: ['forward'] }, targets: [{ id: 'Bus', arn: eventBusArn('orders') }] }),
    rule('OrderPlaced', {
      bus: 'orders',
      pattern: { 'detail-type': [{ prefix: 'Order' }] },
      targets: [{ id: 'Queue', arn: queueArn('orders-seen'), inputPath: '$.detail' }],
    }),
    rule('Destinations', {
      bus: 'orders',
      pattern: { source: ['lambda'], 'detail-type': [{ prefix: 'Lambda Function Invocation Result' }] },
      targets: [{ id: 'Queue', arn: queueArn('orders-seen'), inputPath: '$.detail' }],
    }),
    rule('Audit', {
      bus: 'orders',
      pattern: { source: ['scheduler.test'] },
      targets: [{ id: 'Fn', arn: functionArn('Audit') }],
    }),
    rule('TooBig', {
      pattern: { source: ['big'] },
      targets: [
        {
          id: 'Small',
          arn: queueArn('small'),
          deadLetterArn: queueArn('undelivered'),
          retryPolicy: { maximumRetryAttempts: 1 },
        },
      ],
    }),
    rule('Text', {
      pattern: { source: ['text'] },
      targets: [
        {
          id: 'Fn',
          arn: functionArn('OnText'),
          inputTransformer: { inputPathsMap: { n: '$.detail.n' }, inputTemplate: 'number <n>' },
          deadLetterArn: queueArn('undelivered'),
        },
      ],
    }),
    rule('Nightly', {
      scheduleExpression: 'cron(0 3 * * ? *)',
      targets: [{ id: 'Queue', arn: queueArn('schedule-seen') }],
    }),
    rule('Streams', {
      pattern: { source: ['streams'] },
      targets: [{ id: 'Stream', arn: `arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/s` }],
    }),
  ],
};
const queue = (name: string, attributes: Record<string, string> = {}) => ({ source: `App/${name}`, name, attributes });
const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    queue('plants'),
    queue('orders-seen'),
    queue('small', { MaximumMessageSize: '1024' }),
    queue('undelivered'),
    queue('schedule-seen'),
  ],
  events,
};

let services: Awaited<ReturnType<typeof startLocalServices>>;
let targets: Targets;
let client: EventBridgeClient;
let sqs: SQSClient;
const log: string[] = [];
/** What the `lambda` receiver took, and the waiters for the next one. */
const invoked: { arn: string; event: unknown }[] = [];
let nextInvocation: (() => void) | undefined;

beforeAll(async () => {
  targets = new Targets();
  targets.register('lambda', async (arn, { body }) => {
    invoked.push({ arn, event: JSON.parse(body) });
    nextInvocation?.();
  });
  services = await startLocalServices({ dataDir: undefined, seeds, log: (line) => log.push(line), targets });
  const endpoint = services.endpoints.AWS_ENDPOINT_URL_EVENTBRIDGE;
  client = new EventBridgeClient({ endpoint, region: localAws.region, credentials: localAws.credentials });
  sqs = new SQSClient({ endpoint: services.urls.sqs, region: localAws.region, credentials: localAws.credentials });
});
afterAll(async () => {
  client?.destroy();
  sqs?.destroy();
  await services?.close();
});

const put = (...entries: PutEventsRequestEntry[]) => client.send(new PutEventsCommand({ Entries: entries }));
/** The messages a queue gets within a long poll (the poll answers as soon as one is there). */
const received = async (name: string) => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20, MessageAttributeNames: ['All'] }),
  );
  return Messages;
};
const invocation = () =>
  new Promise<void>((resolve) => {
    nextInvocation = resolve;
  });

describe('PutEvents', () => {
  test('each entry is answered: an EventId, or its ErrorCode and ErrorMessage; FailedEntryCount counts the failed', async () => {
    const answer = await put(
      { Source: 'nobody', DetailType: 'Nothing', Detail: '{}' },
      { Source: 'nobody', DetailType: 'Nothing' },
      { Source: 'nobody', DetailType: 'Nothing', Detail: '[1, 2' },
      { Source: 'aws.s3', DetailType: 'Object Created', Detail: '{}' },
    );
    expect(answer.FailedEntryCount).toBe(3);
    expect(answer.Entries).toEqual([
      { EventId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: 'Parameter Detail is not valid. Reason: Detail is a required argument.',
      },
      { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' },
      { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' },
    ]);
    expect(log).toContain(
      `EventBridge: event ${answer.Entries?.[0]?.EventId} (nobody, Nothing) on bus default: no rule matched`,
    );
  });

  test('a matching event reaches each target: the function gets the event, the queue the InputTransformer output', async () => {
    const invoking = invocation();
    const detail = { name: 'Monstera', price: 25 };
    const { Entries } = await put({
      Source: 'plant.store',
      DetailType: 'Plant Created',
      Detail: JSON.stringify(detail),
    });
    await invoking;
    expect(invoked.at(-1)).toEqual({
      arn: functionArn('OnPlant'),
      event: {
        version: '0',
        id: Entries?.[0]?.EventId,
        'detail-type': 'Plant Created',
        source: 'plant.store',
        account: localAws.accountId,
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        region: localAws.region,
        resources: [],
        detail,
      },
    });
    const messages = await received('plants');
    expect(messages.map(({ Body }) => JSON.parse(Body ?? ''))).toEqual([
      { plant: 'Monstera', price: 25, rule: 'PlantCreated' },
    ]);
  });

  test('an event the pattern does not match reaches no target', async () => {
    const before = invoked.length;
    const { Entries } = await put({ Source: 'plant.store', DetailType: 'Plant Created', Detail: '{"price": 5}' });
    expect(log).toContain(
      `EventBridge: event ${Entries?.[0]?.EventId} (plant.store, Plant Created) on bus default: no rule matched`,
    );
    expect(invoked.length).toBe(before);
  });

  test("a custom bus's rules see its events alone; a rule whose target is that bus forwards the default bus's", async () => {
    const direct = await put({
      Source: 'shop',
      DetailType: 'Order Placed',
      Detail: '{"order":1}',
      EventBusName: 'orders',
    });
    expect(direct.FailedEntryCount).toBe(0);
    expect((await received('orders-seen')).map(({ Body }) => Body)).toEqual(['{"order":1}']);
    // The default bus has no rule for it.
    const onDefault = await put({ Source: 'shop', DetailType: 'Order Placed', Detail: '{"order":2}' });
    expect(log).toContain(
      `EventBridge: event ${onDefault.Entries?.[0]?.EventId} (shop, Order Placed) on bus default: no rule matched`,
    );
    // "Event bus targets": ToOrders sends it on to the orders bus, whose rule delivers it (by the bus's ARN, too).
    await put({ Source: 'forward', DetailType: 'Order Forwarded', Detail: '{"order":3}' });
    expect((await received('orders-seen')).map(({ Body }) => Body)).toEqual(['{"order":3}']);
    await put({
      Source: 'shop',
      DetailType: 'Order Placed',
      Detail: '{"order":4}',
      EventBusName: eventBusArn('orders'),
    });
    expect((await received('orders-seen')).map(({ Body }) => Body)).toEqual(['{"order":4}']);
  });
});

test('an event another service hands to a bus (a schedule) gets the envelope PutEvents gives, its own fields kept', async () => {
  const invoking = invocation();
  const schedule = 'arn:aws:scheduler:us-east-1:000000000000:schedule/default/tick';
  const event = { source: 'scheduler.test', 'detail-type': 'Tick', detail: { n: 1 }, resources: [schedule] };
  await targets.deliver(eventBusArn('orders'), { body: JSON.stringify(event), source: 'scheduler:default/tick' });
  await invoking;
  expect(invoked.at(-1)).toEqual({
    arn: functionArn('Audit'),
    event: {
      version: '0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'detail-type': 'Tick',
      source: 'scheduler.test',
      account: localAws.accountId,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: localAws.region,
      resources: [schedule],
      detail: { n: 1 },
    },
  });
});

// "Capturing records of Lambda asynchronous invocations" (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html):
// a bus destination gets the invocation record as the event's detail, source "lambda", detail-type "Lambda Function
// Invocation Result - Success" (or "- Failure").
test('a sender naming the source and detail-type (a Lambda destination) hands the detail alone', async () => {
  const record = { version: '1.0', requestContext: { condition: 'Success' }, responsePayload: { ok: true } };
  await targets.deliver(eventBusArn('orders'), {
    body: JSON.stringify(record),
    source: 'lambda:Orders',
    event: { source: 'lambda', detailType: 'Lambda Function Invocation Result - Success' },
  });
  expect((await received('orders-seen')).map(({ Body }) => JSON.parse(Body ?? ''))).toEqual([record]);
});

test('a delivery the target refuses is retried as RetryPolicy says, then sent to the DLQ with the attributes AWS lists', async () => {
  // The target queue takes messages of 1,024 bytes at most: the event is larger, so SendMessage refuses it.
  const { Entries } = await put({
    Source: 'big',
    DetailType: 'Big',
    Detail: JSON.stringify({ text: 'x'.repeat(1200) }),
  });
  const [message] = await received('undelivered');
  expect(JSON.parse(message?.Body ?? '')).toMatchObject({ id: Entries?.[0]?.EventId, source: 'big' });
  const attributes = Object.fromEntries(
    Object.entries(message?.MessageAttributes ?? {}).map(([name, { StringValue }]) => [name, StringValue]),
  );
  expect(attributes).toEqual({
    RULE_ARN: ruleArn('default', 'TooBig'),
    TARGET_ARN: queueArn('small'),
    ERROR_CODE: 'SDK_CLIENT_ERROR',
    ERROR_MESSAGE: expect.stringContaining('InvalidParameterValue'),
    EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttemptsExhausted',
    RETRY_ATTEMPTS: '1',
  });
  expect(log.some((line) => line.includes('to Small failed') && line.includes('retry 1 in 1 s'))).toBe(true);
});

test('an input a function cannot take (a text, not JSON) is not retried: it goes to the DLQ at once, INVALID_JSON', async () => {
  const { Entries } = await put({ Source: 'text', DetailType: 'Text', Detail: '{"n": 3}' });
  const [message] = await received('undelivered');
  expect(JSON.parse(message?.Body ?? '')).toMatchObject({ id: Entries?.[0]?.EventId });
  const attributes = Object.fromEntries(
    Object.entries(message?.MessageAttributes ?? {}).map(([name, { StringValue }]) => [name, StringValue]),
  );
  expect(attributes).toEqual({
    RULE_ARN: ruleArn('default', 'Text'),
    TARGET_ARN: functionArn('OnText'),
    ERROR_CODE: 'INVALID_JSON',
    ERROR_MESSAGE: expect.any(String),
    RETRY_ATTEMPTS: '0',
  });
});

test('a schedule rule fires the Scheduled Event: detail-type "Scheduled Event", source aws.events, the rule as resource', async () => {
  // The rule is on the schedules' one clock (schedule-clock.ts), which `fire` fires by hand.
  expect(services.clock.list()).toContainEqual(
    expect.objectContaining({ key: 'rule default/Nightly', expression: 'cron(0 3 * * ? *)', enabled: true }),
  );
  const [nightly] = services.events.scheduledRules();
  await nightly?.fire(new Date('2026-01-02T03:00:00Z'));
  const [message] = await received('schedule-seen');
  expect(JSON.parse(message?.Body ?? '')).toEqual({
    version: '0',
    id: expect.any(String),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: localAws.accountId,
    time: '2026-01-02T03:00:00Z',
    region: localAws.region,
    resources: [ruleArn('default', 'Nightly')],
    detail: {},
  });
});

test('the buses, rules and targets are listed and described as the API Reference answers them', async () => {
  const { EventBuses = [] } = await client.send(new ListEventBusesCommand({}));
  expect(EventBuses.map(({ Name, Arn }) => ({ Name, Arn }))).toEqual([
    { Name: 'default', Arn: eventBusArn('default') },
    { Name: 'orders', Arn: eventBusArn('orders') },
  ]);
  expect((await client.send(new DescribeEventBusCommand({ Name: 'orders' }))).Arn).toBe(eventBusArn('orders'));
  const { Rules = [] } = await client.send(new ListRulesCommand({ EventBusName: 'orders', NamePrefix: 'Order' }));
  expect(Rules).toEqual([
    {
      Name: 'OrderPlaced',
      Arn: ruleArn('orders', 'OrderPlaced'),
      EventBusName: 'orders',
      State: 'ENABLED',
      EventPattern: '{"detail-type":[{"prefix":"Order"}]}',
    },
  ]);
  const described = await client.send(new DescribeRuleCommand({ Name: 'Nightly' }));
  expect(described).toMatchObject({ ScheduleExpression: 'cron(0 3 * * ? *)', Arn: ruleArn('default', 'Nightly') });
  const { Targets = [] } = await client.send(new ListTargetsByRuleCommand({ Rule: 'TooBig' }));
  expect(Targets).toEqual([
    {
      Id: 'Small',
      Arn: queueArn('small'),
      DeadLetterConfig: { Arn: queueArn('undelivered') },
      RetryPolicy: { MaximumRetryAttempts: 1 },
    },
  ]);
  await expect(client.send(new DescribeRuleCommand({ Name: 'Nightly', EventBusName: 'orders' }))).rejects.toMatchObject(
    {
      name: 'ResourceNotFoundException',
    },
  );
  const tested = await client.send(
    new TestEventPatternCommand({ EventPattern: '{"source":[{"prefix":"plant"}]}', Event: '{"source":"plant.store"}' }),
  );
  expect(tested.Result).toBe(true);
});

test('a target no local service serves is said at start and left out; a malformed pattern refuses the rules by name', async () => {
  expect(log).toContain(
    `App/Streams: rule Streams's target Stream (arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/s) is not served locally: its events are not delivered`,
  );
  expect(services.events.banner()).toContain('  rule Streams -> no target served');
  const malformed = { ...events, rules: [rule('Broken', { pattern: { source: [{ prefix: 3 }] } })] };
  expect(() => services.events.seed(malformed)).toThrow(UnsupportedTemplateError);
  expect(() => services.events.seed(malformed)).toThrow(/App\/Broken: rule Broken: .*"source"/);
  // "Target": Input is JSON text; "InputTransformer": paths of the documented subset, no variable named aws.*.
  const target = { id: 'T', arn: queueArn('plants') };
  const refused = (more: object) => () =>
    services.events.seed({
      ...events,
      rules: [rule('Bad', { pattern: { source: ['x'] }, targets: [{ ...target, ...more }] })],
    });
  expect(refused({ input: 'not json' })).toThrow("App/Bad: rule Bad's target T: its Input is not JSON text: not json");
  expect(refused({ inputPath: '$..name' })).toThrow("InputPath's path $..name is not one EventBridge takes");
  const reserved = { inputPathsMap: { 'aws.mine': '$.detail' }, inputTemplate: '<aws.mine>' };
  expect(refused({ inputTransformer: reserved })).toThrow('the variable aws.mine is reserved');
  services.events.seed(events);
});
