// Lambda's Invoke API at the runner's local endpoint, reached by the AWS SDK v3's LambdaClient unchanged ("Invoke",
// AWS Lambda API Reference, https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html: RequestResponse, Event 202,
// DryRun 204, Qualifier, a name, ARN or partial ARN, LogType Tail, X-Amz-Function-Error, X-Amz-Executed-Version, and
// its errors ResourceNotFoundException 404, InvalidRequestContentException 400, RequestTooLargeException 413), and
// asynchronous invocations as "Invoking a Lambda function asynchronously"
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html) and "Configuring error handling for
// asynchronous invocation" (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html) give
// them: two retries, then the on-failure destination, with the record "Capturing records of Lambda asynchronous
// invocations" (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html) shows, or the
// dead-letter queue with its RequestID, ErrorCode and ErrorMessage attributes. Functions are named as Lambda names
// them ("AWS::Lambda::Function", FunctionName: the template's, else one CloudFormation generates).
import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { InvokeCommand, type InvokeCommandInput, LambdaClient } from '@aws-sdk/client-lambda';
import { GetQueueUrlCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { invokeAppNames, synthesizeInvokeApp } from '../fixtures/invoke-app.ts';

const execFileAsync = promisify(execFile);
const arnOf = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
const flaky = generatedFunctionName(invokeAppNames.stack, invokeAppNames.flaky);
const dead = generatedFunctionName(invokeAppNames.stack, invokeAppNames.dead);

let assembly = '';
let runner: Runner | undefined;
let lambda: LambdaClient;
let sqs: SQSClient;
const log: string[] = [];

beforeAll(async () => {
  assembly = synthesizeInvokeApp();
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    // The retries' back-off, shortened (AWS's: about one minute, then two).
    asyncRetryDelayMs: 20,
    log: (line) => log.push(line),
    functionLog: (name, line) => log.push(`${name}: ${line}`),
  });
  const client = { region: localAws.region, credentials: localAws.credentials };
  lambda = new LambdaClient({ ...client, endpoint: runner.lambdaEndpoint });
  sqs = new SQSClient({ ...client, endpoint: runner.serviceUrls.sqs });
}, 120_000);
afterAll(async () => {
  lambda?.destroy();
  sqs?.destroy();
  await runner?.close();
  if (assembly) rmSync(dirname(assembly), { recursive: true, force: true });
}, 60_000);

const invoke = async (input: InvokeCommandInput) => {
  const output = await lambda.send(new InvokeCommand(input));
  const text = output.Payload ? Buffer.from(output.Payload).toString('utf8') : '';
  return { ...output, payload: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
};
const event = (value: unknown) => Buffer.from(JSON.stringify(value));

/** The next message of the queue named `name`, waited for by long polling (a fact, not a time). */
const nextMessage = async (name: string, client = sqs): Promise<Message> => {
  const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: name }));
  for (;;) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20, MessageAttributeNames: ['All'] }),
    );
    const [message] = Messages;
    if (message) return message;
  }
};

describe('RequestResponse', () => {
  test("the function's FunctionName is its name: context.functionName, its variable, its ARN and log group", async () => {
    const output = await invoke({ FunctionName: invokeAppNames.named, Payload: event({ say: 'hello' }) });
    expect(output).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
    expect(output.FunctionError).toBeUndefined();
    expect(output.payload).toEqual({
      event: { say: 'hello' },
      functionName: invokeAppNames.named,
      variable: invokeAppNames.named,
      invokedFunctionArn: arnOf(invokeAppNames.named),
      // Locally a function whose template publishes a version runs as that version, invoked by alias or not.
      functionVersion: '1',
      logGroupName: `/aws/lambda/${invokeAppNames.named}`,
      endpoint: runner?.lambdaEndpoint,
    });
  });

  test('a function with no FunctionName: the name CloudFormation generates, taken as its ARN too', async () => {
    expect(flaky).toMatch(/^Invoked-Flaky-[A-Za-z0-9]{12}$/);
    const output = await invoke({ FunctionName: arnOf(flaky), Payload: event({}) });
    expect(output.payload).toMatchObject({ functionName: flaky, invokedFunctionArn: arnOf(flaky) });
  });

  test('a partial ARN with an alias, and the Qualifier parameter: the alias runs its published version', async () => {
    const partial = await invoke({ FunctionName: `000000000000:function:${invokeAppNames.named}:live` });
    expect(partial).toMatchObject({ StatusCode: 200, ExecutedVersion: '1' });
    expect(partial.payload).toMatchObject({
      invokedFunctionArn: `${arnOf(invokeAppNames.named)}:live`,
      functionVersion: '1',
    });
    const qualified = await invoke({ FunctionName: invokeAppNames.named, Qualifier: 'live' });
    expect(qualified.payload).toMatchObject({ invokedFunctionArn: `${arnOf(invokeAppNames.named)}:live` });
  });

  test('LogType Tail: the last 4 KB of its log, base64, framed by START, END and REPORT', async () => {
    const output = await invoke({
      FunctionName: invokeAppNames.named,
      LogType: 'Tail',
      Payload: event({ say: 'tail' }),
    });
    const tail = Buffer.from(output.LogResult ?? '', 'base64').toString('utf8');
    expect(tail).toMatch(/^START RequestId: [0-9a-f-]{36} Version: \$LATEST\n/);
    expect(tail).toContain('said: tail');
    expect(tail).toMatch(/END RequestId: [0-9a-f-]{36}\nREPORT RequestId: [0-9a-f-]{36}\tDuration: [\d.]+ ms/);
  });

  test('a function error: X-Amz-Function-Error Unhandled, and the error as the payload (status 200)', async () => {
    const output = await invoke({ FunctionName: invokeAppNames.named, Payload: event({ fail: 'now' }) });
    expect(output).toMatchObject({ StatusCode: 200, FunctionError: 'Unhandled' });
    expect(output.payload).toEqual({ errorType: 'Error', errorMessage: 'asked to fail: now' });
  });
});

test('DryRun: 204, and the function does not run', async () => {
  const before = runner?.invocations(invokeAppNames.named);
  const output = await invoke({ FunctionName: invokeAppNames.named, InvocationType: 'DryRun' });
  expect(output.StatusCode).toBe(204);
  expect(runner?.invocations(invokeAppNames.named)).toBe(before);
});

describe("Lambda's errors", () => {
  const refusal = (input: InvokeCommandInput) =>
    lambda.send(new InvokeCommand(input)).then(
      () => undefined,
      (error: { name: string; $metadata: { httpStatusCode?: number } }) => ({
        name: error.name,
        status: error.$metadata.httpStatusCode,
      }),
    );

  test.each([
    ['a name no function has', { FunctionName: 'nobody' }],
    ['an alias the function does not have', { FunctionName: invokeAppNames.named, Qualifier: 'nope' }],
    ['an ARN of another account', { FunctionName: `arn:aws:lambda:us-east-1:111111111111:function:${flaky}` }],
  ])('%s: ResourceNotFoundException (404)', async (_, input) => {
    expect(await refusal(input)).toEqual({ name: 'ResourceNotFoundException', status: 404 });
  });

  test('a payload that is not JSON: InvalidRequestContentException (400)', async () => {
    expect(await refusal({ FunctionName: invokeAppNames.named, Payload: Buffer.from('{not json') })).toEqual({
      name: 'InvalidRequestContentException',
      status: 400,
    });
  });

  test('an Event payload over 1 MB: RequestTooLargeException (413)', async () => {
    const Payload = event({ say: 'x'.repeat(1024 * 1024) });
    expect(await refusal({ FunctionName: invokeAppNames.named, InvocationType: 'Event', Payload })).toEqual({
      name: 'RequestTooLargeException',
      status: 413,
    });
  });

  test('an unsigned request: 403 MissingAuthenticationTokenException', async () => {
    const response = await fetch(`${runner?.lambdaEndpoint}/2015-03-31/functions/${invokeAppNames.named}/invocations`, {
      method: 'POST',
      body: '{}',
    });
    expect({ status: response.status, type: response.headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      type: 'MissingAuthenticationTokenException',
    });
  });
});

describe('loopback callers alone, as every server of the runner', () => {
  /** A POST to the Invoke path with `headers`, by node:http (fetch sets Host itself): its status and error type. */
  const post = (headers: Record<string, string>) =>
    new Promise<{ status?: number; type?: string | string[] }>((resolve, reject) => {
      const request = httpRequest(
        `${runner?.lambdaEndpoint}/2015-03-31/functions/${invokeAppNames.named}/invocations`,
        { method: 'POST', headers },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode, type: response.headers['x-amzn-errortype'] }),
          );
        },
      );
      request.on('error', reject);
      request.end('{}');
    });

  test.each([
    ['another host (DNS rebinding)', { Host: 'evil.example' }],
    ['a web page (its Origin)', { Origin: 'http://evil.example' }],
  ])('%s: 403 AccessDeniedException, the function not run', async (_, headers) => {
    const before = runner?.invocations(invokeAppNames.named);
    expect(await post(headers)).toEqual({ status: 403, type: 'AccessDeniedException' });
    expect(runner?.invocations(invokeAppNames.named)).toBe(before);
  });
});

describe('Event: queued, retried, recorded', () => {
  test('202, then the on-success destination gets the invocation record', async () => {
    const output = await invoke({ FunctionName: flaky, InvocationType: 'Event', Payload: event({ say: 'later' }) });
    expect(output.StatusCode).toBe(202);
    const record = JSON.parse((await nextMessage(invokeAppNames.successes)).Body ?? '') as Record<string, unknown>;
    expect(record).toEqual({
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      requestContext: {
        requestId: output.$metadata.requestId,
        functionArn: `${arnOf(flaky)}:$LATEST`,
        condition: 'Success',
        approximateInvokeCount: 1,
      },
      requestPayload: { say: 'later' },
      responseContext: { statusCode: 200, executedVersion: '$LATEST' },
      responsePayload: expect.objectContaining({ functionName: flaky, event: { say: 'later' } }),
    });
  });

  test('async retries into an on-failure destination: three attempts, then the record (RetriesExhausted)', async () => {
    const output = await invoke({ FunctionName: flaky, InvocationType: 'Event', Payload: event({ fail: 'always' }) });
    expect(output.StatusCode).toBe(202);
    const record = JSON.parse((await nextMessage(invokeAppNames.failures)).Body ?? '') as Record<string, unknown>;
    expect(record).toEqual({
      version: '1.0',
      timestamp: expect.any(String),
      requestContext: {
        requestId: output.$metadata.requestId,
        functionArn: `${arnOf(flaky)}:$LATEST`,
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: { fail: 'always' },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'Error', errorMessage: 'asked to fail: always' },
    });
    // The same request id each attempt, the first and the two retries.
    const attempts = log.filter((line) => line.includes(`${output.$metadata.requestId} from Invoke (Event) failed`));
    expect(attempts.map((line) => /\(attempt (\d) of 3\)/.exec(line)?.[1])).toEqual(['1', '2', '3']);
  });

  test('no retry (MaximumRetryAttempts 0): the event to the dead-letter queue, with its attributes', async () => {
    const output = await invoke({ FunctionName: dead, InvocationType: 'Event', Payload: event({ fail: 'once' }) });
    const message = await nextMessage(invokeAppNames.deadLetters);
    expect(JSON.parse(message.Body ?? '')).toEqual({ fail: 'once' });
    expect(message.MessageAttributes).toEqual({
      RequestID: { DataType: 'String', StringValue: output.$metadata.requestId },
      ErrorCode: { DataType: 'Number', StringValue: '200' },
      ErrorMessage: { DataType: 'String', StringValue: expect.stringContaining('asked to fail: once') },
    });
  });
});

describe("Lambda's back-off (about a minute) against a maximum event age of 60 s", () => {
  let aws: Runner | undefined;
  const said: string[] = [];
  beforeAll(async () => {
    aws = await startRunner({
      cloudAssemblyDir: assembly,
      port: 0,
      dataDir: undefined,
      maxWorkers: 1,
      log: (line) => said.push(line),
      functionLog: () => undefined,
    });
  }, 120_000);
  afterAll(async () => {
    await aws?.close();
  }, 60_000);

  test('an event that would be too old by its next retry: the record (EventAgeExceeded) after one attempt', async () => {
    const client = { region: localAws.region, credentials: localAws.credentials };
    const awsLambda = new LambdaClient({ ...client, endpoint: aws?.lambdaEndpoint });
    const awsSqs = new SQSClient({ ...client, endpoint: aws?.serviceUrls.sqs });
    try {
      const aged = generatedFunctionName(invokeAppNames.stack, invokeAppNames.aged);
      const output = await awsLambda.send(
        new InvokeCommand({ FunctionName: aged, InvocationType: 'Event', Payload: event({ fail: 'aged' }) }),
      );
      const record = JSON.parse((await nextMessage(invokeAppNames.tooOld, awsSqs)).Body ?? '') as Record<
        string,
        unknown
      >;
      expect(record).toMatchObject({
        requestContext: {
          requestId: output.$metadata.requestId,
          condition: 'EventAgeExceeded',
          approximateInvokeCount: 1,
        },
        requestPayload: { fail: 'aged' },
        responseContext: { functionError: 'Unhandled' },
      });
      expect(said).toContainEqual(
        expect.stringMatching(
          /failed \(attempt 1 of 3\): .*; older than its maximum event age \(60 s\) by the next retry$/,
        ),
      );
    } finally {
      awsLambda.destroy();
      awsSqs.destroy();
    }
  });
});

test('boto3 invokes through the same endpoint, where this machine has it', async () => {
  if (spawnSync('python3', ['-c', 'import boto3'], { stdio: 'ignore' }).status !== 0) return;
  const script = [
    'import boto3, json, os',
    "client = boto3.client('lambda', endpoint_url=os.environ['ENDPOINT'], region_name='us-east-1', aws_access_key_id=os.environ['KEY'], aws_secret_access_key=os.environ['SECRET'])",
    "answer = client.invoke(FunctionName=os.environ['NAME'], Payload=json.dumps({'say': 'boto3'}))",
    "print(json.dumps({'status': answer['StatusCode'], 'payload': json.loads(answer['Payload'].read())}))",
  ].join('\n');
  // Not spawnSync: the runner answering it runs in this process.
  const run = await execFileAsync('python3', ['-c', script], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      ENDPOINT: runner?.lambdaEndpoint ?? '',
      KEY: localAws.credentials.accessKeyId,
      SECRET: localAws.credentials.secretAccessKey,
      NAME: invokeAppNames.named,
    },
  });
  expect(JSON.parse(run.stdout)).toMatchObject({ status: 200, payload: { event: { say: 'boto3' } } });
});

test('AWS_ENDPOINT_URL_LAMBDA is among the endpoints the runner gives (`cdk-local-runner env`)', () => {
  expect(runner?.endpointVariables.AWS_ENDPOINT_URL_LAMBDA).toBe(runner?.lambdaEndpoint);
  expect(runner?.lambdaEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});
