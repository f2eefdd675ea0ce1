// "Storage first" APIs in the shapes public CDK apps showed (test/README.md names them; each app was fetched, served
// in a temporary folder and exercised as its README says, never committed), served from our fixture
// (fixtures/storage-first-app.ts): the request, the answer, and what the service then holds or hands on.
// - "Set up an AWS service integration" and "Integration responses" for REST APIs
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-integration-settings.html,
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-integration-settings-integration-response.html):
//   for an AWS integration, SelectionPattern is matched against the service's HTTP status; none matching, the
//   default response (the one without a pattern) answers, whatever the service said.
// - "Amazon SNS message filtering" (https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html) and
//   "Amazon SNS raw message delivery" (https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html):
//   each queue gets what its filter policy passes, the message alone, its attributes as the queue's.
// - "Working with message attributes" (SNS): an attribute's value may not be empty; AWS answers ParameterValueInvalid
//   (localstack/localstack, tests/aws/services/sns/test_sns.py, test_empty_or_wrong_message_attributes, validated on AWS).
// - "Change data capture for DynamoDB Streams" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html):
//   an item written is a record of its new image for the stream's function.
// - "Create an integration with an AWS service for HTTP APIs"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html):
//   EventBridge-PutEvents with Detail, DetailType, Source and EventBusName (a name or an ARN).
import { createHash } from 'node:crypto';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, test } from '@jest/globals';
import { storageFirstIds, synthesizeStorageFirstApp } from '../fixtures/storage-first-app.ts';
import { localClient } from '../helpers/local-clients.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

const runner = servedBeforeAll(synthesizeStorageFirstApp);

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
};

const delivered = () => runner.log.lines.filter((line) => /SNS: .* delivered message /.test(line)).length;

// cdk-patterns/serverless, the-big-fan/typescript (at 08e3163; lib/the-big-fan-stack.ts, its README's two payloads).
describe('a POST published to a topic by a path//-URI integration, two filtered queues each feeding a function (the-big-fan)', () => {
  test('each payload of the README reaches the function its status filters it to', async () => {
    const url = `${runner.urlOf(storageFirstIds.fan)}/SendEvent`;
    const added = { status: 200, body: '{"message":"message added to topic"}' };
    expect(await post(url, { message: 'hello', status: 'created' })).toEqual(added);
    expect(await post(url, { message: 'a&b+c ü', status: 'not created' })).toEqual(added);
    await runner.functionLog.seen(/\screated queue got hello$/);
    await runner.functionLog.seen(/\sother queue got a&b\+c ü \(not created\)$/);
  });

  test('no status: SNS refuses the empty attribute (400, no pattern matches it), the default 200 answers, nothing delivered', async () => {
    const before = delivered();
    expect(await post(`${runner.urlOf(storageFirstIds.fan)}/SendEvent`, { message: 'no status' })).toEqual({
      status: 200,
      body: '{"message":"message added to topic"}',
    });
    // SNS hands a message to its queues before Publish answers: had it taken it, the line would be there.
    expect(delivered()).toBe(before);
  });
});

// cdk-patterns/serverless, the-dynamo-streamer/typescript (at 08e3163; lib/the-dynamo-streamer-stack.ts, its README).
describe('a POST put in a table by a PutItem template, the table streaming to a function (the-dynamo-streamer)', () => {
  test("the README's payload is stored and streamed; one without a message is refused by DynamoDB and stores nothing", async () => {
    const url = `${runner.urlOf(storageFirstIds.streamer)}/InsertItem`;
    const added = { status: 200, body: '{"message":"item added to db"}' };
    expect(await post(url, { message: 'hello' })).toEqual(added);
    await runner.functionLog.seen(/\sstreamed INSERT hello$/);
    // `$input.path('$.message')` renders as nothing: an empty key, which DynamoDB refuses (400, no pattern matches).
    expect(await post(url, { other: 'x' })).toEqual(added);
    const database = localClient(DynamoDBClient, runner.api.databaseEndpoint);
    const { TableNames: names = [] } = await database.send(new ListTablesCommand({}));
    const TableName = names.find((name) => name.includes('Streamed'));
    const { Items: items } = await database.send(new ScanCommand({ TableName }));
    expect(items).toEqual([{ message: { S: 'hello' } }]);
  });
});

// aws-samples/serverless-patterns, apigw-sqs-cdk-typescript (at 9a4c790; lib/apigw-sqs.ts, its README's curl and
// `aws sqs receive-message`).
describe('a POST sent to a queue by a path whose account is undefined, its body unencoded (apigw-sqs-cdk-typescript)', () => {
  // The answer, with no response template, is SQS's as JSON, as aws-samples/serverless-patterns shows it through a
  // REST API (cdk-apigw-authorizer-sqs/README.md, at 9a4c790): API Gateway asks for JSON.
  test("the README's curl is answered 200 with SendMessage's JSON, its body received from the queue as sent", async () => {
    const body = '{ "message": "this is a test message" }';
    const answer = await post(runner.urlOf(storageFirstIds.queueApi), body);
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
      status: 200,
      body: {
        SendMessageResponse: {
          SendMessageResult: {
            MessageId: expect.any(String),
            MD5OfMessageBody: createHash('md5').update(body).digest('hex'),
          },
          ResponseMetadata: { RequestId: expect.any(String) },
        },
      },
    });
    const sqs = localClient(SQSClient, runner.api.serviceUrls.sqs);
    const QueueUrl = runner.api.queues().find(({ name }) => name === storageFirstIds.queue)?.url;
    const { Messages: messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(messages.map(({ Body }) => Body)).toEqual([body]);
  });
});

// aws-samples/serverless-patterns, apigw-http-api-eventbridge-cdk/cdk (at 9a4c790; lib/api-eventbridge-stack.ts, its
// README's curl, then "check the logs in Cloudwatch logs"). Its rule's only target is a log group, whose resource
// policy a custom resource puts; what the group would hold is in the runner's log ("the entire EventBridge event",
// CDK's LogGroupProps, https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_events_targets.LogGroupProps.html).
describe('an HTTP API putting the body on a bus named by ARN, its rule to a log group (apigw-http-api-eventbridge-cdk)', () => {
  test("the README's curl puts one event, which the rule writes to its log group and hands to its function", async () => {
    const detail = { Detail: { message: 'This is my test' } };
    const answer = await post(runner.urlOf(storageFirstIds.events), detail);
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
      status: 200,
      body: { FailedEntryCount: 0, Entries: [{ EventId: expect.any(String) }] },
    });
    await runner.functionLog.seen(/\srule got WebApp MyDetailType \{"Detail":\{"message":"This is my test"\}\}$/);
    const logged = /CloudWatch Logs \/aws\/events\/storage-first \(from events:rule\/[^)]+\): (\{.*\})$/;
    await runner.log.seen(logged);
    const [, event = '{}'] = runner.log.lines.map((line) => logged.exec(line)).find(Boolean) ?? [];
    expect(JSON.parse(event)).toMatchObject({
      id: JSON.parse(answer.body).Entries[0].EventId,
      source: 'WebApp',
      'detail-type': 'MyDetailType',
      detail,
    });
  });
});
