// A Python consumer of the local SQS: boto3 with nothing but the variables a function gets (AWS_ENDPOINT_URL_SQS, the
// region, the local credentials; "Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html) sends, receives and deletes as "Amazon SQS
// examples using SDK for Python (Boto3)" does (https://docs.aws.amazon.com/code-library/latest/ug/python_3_sqs_code_examples.html),
// catches QueueDoesNotExist by its class, and redrives a dead-letter queue (StartMessageMoveTask,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html). Then the AWS
// CLI with `--endpoint-url` ("Command line options", AWS Command Line Interface User Guide,
// https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-options.html), where this machine has it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { launch, stopStarted } from 'test-support/launched';
import { awsCliPath, boto3Source } from 'test-support/python-tools';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';

const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    {
      source: 'App/Orders',
      name: 'orders',
      attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: queueArn('orders-dead'), maxReceiveCount: 1 }),
      },
    },
    { source: 'App/OrdersDead', name: 'orders-dead', attributes: {} },
    { source: 'App/Cli', name: 'cli', attributes: {} },
  ],
};

const boto3 = boto3Source();
const aws = awsCliPath();
if (boto3 === undefined)
  console.warn("Skipping the boto3 consumer: neither python3 nor the runner's user cache has boto3.");
if (aws === undefined) console.warn('Skipping the AWS CLI test: no `aws` on this PATH.');

let services: Awaited<ReturnType<typeof startLocalServices>>;
let folder = '';
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'sqs-python-'));
  services = await startLocalServices({ dataDir: undefined, seeds, log: () => undefined });
});
afterAll(async () => {
  await services.close();
  rmSync(folder, { recursive: true, force: true });
});
afterEach(stopStarted);

/** The environment a function gets for SQS, and nothing else (no configuration file, no other endpoint). */
const onlyVariables = () => ({
  PATH: process.env.PATH ?? '',
  ...(typeof boto3 === 'object' && { PYTHONPATH: boto3.folder }),
  AWS_CONFIG_FILE: join(folder, 'none'),
  AWS_SHARED_CREDENTIALS_FILE: join(folder, 'none'),
  AWS_REGION: localAws.region,
  AWS_DEFAULT_REGION: localAws.region,
  AWS_ACCESS_KEY_ID: localAws.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: localAws.credentials.secretAccessKey,
});

/** Runs `command` to its end (in a process group of its own); its exit code and output. */
const ran = async (command: [string, ...string[]], env: Record<string, string>) => {
  const run = launch(command, { cwd: folder, env });
  const status = await run.exited;
  await run.closed;
  return { status, output: run.output() };
};

(boto3 ? describe : describe.skip)('boto3, with only the variables a function gets', () => {
  test('sends, receives with attributes, deletes, catches QueueDoesNotExist and redrives a dead-letter queue', async () => {
    const program = join(folder, 'consumer.py');
    writeFileSync(
      program,
      `import json, boto3
sqs = boto3.client("sqs")
url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
sqs.send_message(QueueUrl=url, MessageBody="one", MessageAttributes={"kind": {"DataType": "String", "StringValue": "new"}})
sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": "b", "MessageBody": "two"}])
got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageAttributeNames=["All"],
                          MessageSystemAttributeNames=["ApproximateReceiveCount"])["Messages"]
bodies = sorted(m["Body"] for m in got)
kinds = [m.get("MessageAttributes", {}).get("kind", {}).get("StringValue") for m in got if m["Body"] == "one"]
sqs.delete_message(QueueUrl=url, ReceiptHandle=[m for m in got if m["Body"] == "one"][0]["ReceiptHandle"])
try:
    sqs.get_queue_url(QueueName="nowhere")
    missing = "found"
except sqs.exceptions.QueueDoesNotExist:
    missing = "QueueDoesNotExist"
# "two" was received once and not deleted: maxReceiveCount 1 moves it to the dead-letter queue at the next receive.
sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=[m for m in got if m["Body"] == "two"][0]["ReceiptHandle"],
                              VisibilityTimeout=0)
left = sqs.receive_message(QueueUrl=url).get("Messages", [])
dead_arn = sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName="orders-dead")["QueueUrl"],
                                    AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
sqs.start_message_move_task(SourceArn=dead_arn)
back = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5).get("Messages", [])
print("RESULT " + json.dumps({"bodies": bodies, "kinds": kinds, "missing": missing, "left": left,
                              "back": [m["Body"] for m in back], "endpoint": sqs.meta.endpoint_url}))
`,
    );
    const run = await ran(['python3', program], {
      ...onlyVariables(),
      AWS_ENDPOINT_URL_SQS: services.endpoints.AWS_ENDPOINT_URL_SQS,
    });
    expect({ status: run.status, output: /^RESULT /m.test(run.output) ? '' : run.output }).toEqual({
      status: 0,
      output: '',
    });
    expect(JSON.parse(/^RESULT (.*)$/m.exec(run.output)?.[1] ?? '{}')).toEqual({
      bodies: ['one', 'two'],
      kinds: ['new'],
      missing: 'QueueDoesNotExist',
      left: [],
      back: ['two'],
      endpoint: services.endpoints.AWS_ENDPOINT_URL_SQS,
    });
  }, 30_000);
});

(aws ? describe : describe.skip)('the AWS CLI, with --endpoint-url', () => {
  test('send-message, receive-message and delete-message on a queue of the template', async () => {
    const cli = async (...args: string[]) => {
      const run = await ran([aws as string, 'sqs', ...args, '--endpoint-url', services.urls.sqs, '--output', 'json'], {
        ...onlyVariables(),
      });
      expect({ status: run.status, output: run.status === 0 ? '' : run.output }).toEqual({ status: 0, output: '' });
      return run.output.trim() === '' ? {} : (JSON.parse(run.output) as Record<string, unknown>);
    };
    const { QueueUrl } = (await cli('get-queue-url', '--queue-name', 'cli')) as { QueueUrl: string };
    expect(QueueUrl).toBe(`${services.urls.sqs}/${localAws.accountId}/cli`);
    await cli('send-message', '--queue-url', QueueUrl, '--message-body', 'from the CLI');
    const { Messages } = (await cli('receive-message', '--queue-url', QueueUrl)) as {
      Messages: { Body: string; ReceiptHandle: string }[];
    };
    expect(Messages.map(({ Body }) => Body)).toEqual(['from the CLI']);
    await cli('delete-message', '--queue-url', QueueUrl, '--receipt-handle', Messages[0]?.ReceiptHandle as string);
    const { Attributes } = (await cli(
      'get-queue-attributes',
      '--queue-url',
      QueueUrl,
      '--attribute-names',
      'ApproximateNumberOfMessages',
      'ApproximateNumberOfMessagesNotVisible',
    )) as { Attributes: Record<string, string> };
    expect(Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  }, 60_000);
});
