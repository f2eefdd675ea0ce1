// State machines behind APIs in the shapes public CDK apps showed (test/README.md names them; the apps themselves were
// served in a temporary folder, never committed), served as their READMEs say to exercise them.
// - "Integration subtype reference" (StepFunctions-StartSyncExecution, payload 1.0,
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html)
//   and StartSyncExecution (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartSyncExecution.html):
//   the answer is StartSyncExecution's, `output` for a SUCCEEDED execution, `error` and `cause` for a FAILED one.
// - "Handling errors in Step Functions workflows" (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html):
//   a Retry runs the state again (IntervalSeconds 1 by default, skipped here), a Catch goes on to its Next with the
//   error output at its ResultPath; "Invoke an AWS Lambda function with Step Functions"
//   (https://docs.aws.amazon.com/step-functions/latest/dg/connect-lambda.html): without payloadResponseOnly a task's
//   result is Invoke's whole answer, the function's result at `Payload`; GetExecutionHistory
//   (https://docs.aws.amazon.com/step-functions/latest/apireference/API_GetExecutionHistory.html) names the events.
// - CDK's StepFunctionsRestApi ("aws-cdk-lib.aws_apigateway module": the execution's output is the answer) opened
//   with a GET, as a browser would: no body, which API Gateway gives the request template's `$input.body` as `{}`
//   (observed against AWS by localstack/localstack#12413; "API Gateway mapping template and access logging variable
//   reference" says only "the raw request payload as a string"); "Parallel workflow state"
//   (https://docs.aws.amazon.com/step-functions/latest/dg/state-parallel.html): the branches' outputs as an array.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizeWorkflowShapesApp, workflowShapes } from '../fixtures/workflow-shapes-app.ts';
import { localClient } from '../helpers/local-clients.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

/** The node_modules folder holding `aws-sdk` (2.1001.0): the SDK v2 Lambda's nodejs12.x runtime provides. */
const installedPackages = join(dirname(fileURLToPath(import.meta.resolve('aws-sdk/package.json'))), '..');

const runner = servedBeforeAll(synthesizeWorkflowShapesApp, { runtimeSdk: installedPackages, skipWaits: true });
let sfn: SFNClient | undefined;
let database: DynamoDBClient | undefined;
beforeAll(() => {
  sfn = localClient(SFNClient, runner.api.serviceUrls.states);
  database = localClient(DynamoDBClient, runner.api.databaseEndpoint);
});
afterAll(() => {
  sfn?.destroy();
  database?.destroy();
});

describe('an HTTP API starting an express state machine synchronously (the-state-machine)', () => {
  const post = (body: string) => fetch(`${runner.urlOf(workflowShapes.fruitApi)}/`, { method: 'POST', body });

  test("a fruit sold: 200, the execution SUCCEEDED with the task's result as its output", async () => {
    const response = await post('{ "fruit": "apple" }');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      executionArn: expect.stringMatching(
        /^arn:aws:states:us-east-1:000000000000:express:FruitCheck-\w{12}:[0-9a-f-]{36}:[0-9a-f-]{36}$/,
      ),
      stateMachineArn: expect.stringMatching(/^arn:aws:states:us-east-1:000000000000:stateMachine:FruitCheck-\w{12}$/),
      name: expect.any(String),
      status: 'SUCCEEDED',
      startDate: expect.any(Number),
      stopDate: expect.any(Number),
      input: '{ "fruit": "apple" }',
      inputDetails: { included: true },
      output: '{"refused":false}',
      outputDetails: { included: true },
      billingDetails: expect.objectContaining({ billedDurationInMilliseconds: expect.any(Number) }),
    });
    // The task's input is the one field InputPath picks: a bare JSON string.
    await runner.functionLog.seen(/CheckFunction: .*checking "apple"$/);
  });

  test('a fruit refused: still 200, the execution FAILED with the Fail state’s error and cause', async () => {
    const response = await post('{ "fruit": "durian" }');
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ status: 'FAILED', error: 'Fruit.Refused', cause: 'durian is not sold here' });
    expect(answer).not.toHaveProperty('output');
  });
});

describe('a saga started by a function behind a greedy proxy, its failures compensated (the-saga-stepfunction)', () => {
  /** GET the API as the README does; resolves once the execution it started has ended, with its ARN. */
  const order = async (query: string) => {
    const started = runner.functionLog.next(/StartFunction: .*started (arn:\S+)$/);
    const response = await fetch(`${runner.urlOf(workflowShapes.sagaApi)}/?${query}`);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { message: 'the order is being processed' },
    });
    const executionArn = /started (arn:\S+)$/.exec(await started)?.[1] ?? '';
    const name = executionArn.split(':').at(-1);
    await runner.log.seen(new RegExp(`OrderSaga-\\w+ ${name}: execution (succeeded|failed)`));
    return executionArn;
  };
  const history = async (executionArn: string) =>
    (await sfn?.send(new GetExecutionHistoryCommand({ executionArn })))?.events ?? [];
  const entered = (events: HistoryEvent[]) =>
    events.flatMap((event) => (event.type?.endsWith('StateEntered') ? [event.stateEnteredEventDetails?.name] : []));
  const rows = async (trip: string) => {
    const { TableNames: names = [] } = (await database?.send(new ListTablesCommand({}))) ?? {};
    const TableName = names.find((name) => name.includes(workflowShapes.table));
    const query = new QueryCommand({
      TableName,
      KeyConditionExpression: 'pk = :trip',
      ExpressionAttributeValues: { ':trip': { S: trip } },
    });
    return ((await database?.send(query))?.Items ?? []).map((item) => `${item.sk?.S} ${item.status?.S}`);
  };

  test('an order: every step runs, its rows are written and confirmed', async () => {
    const executionArn = await order('trip=t-ok');
    const described = await sfn?.send(new DescribeExecutionCommand({ executionArn }));
    expect(described?.status).toBe('SUCCEEDED');
    expect(entered(await history(executionArn))).toEqual(['Reserve', 'Charge', 'Confirm', 'Ordered']);
    expect(await rows('t-ok')).toEqual(['CHARGE charged', 'RESERVATION confirmed']);
  });

  test.each([
    ['reserve', ['Reserve', 'Release', 'Not ordered']],
    ['confirm', ['Reserve', 'Charge', 'Confirm', 'Refund', 'Release', 'Not ordered']],
  ])('a %s that fails: caught, compensated backwards (a refund retried), no row left', async (step, states) => {
    const executionArn = await order(`trip=t-${step}&fail=${step}`);
    expect((await sfn?.send(new DescribeExecutionCommand({ executionArn })))?.status).toBe('FAILED');
    const events = await history(executionArn);
    expect(entered(events)).toEqual(states);
    const caughtError = events.find((event) => event.type === 'TaskFailed')?.taskFailedEventDetails;
    expect(caughtError).toMatchObject({ error: 'Error', cause: expect.stringContaining(`${step} refused`) });
    expect(events.at(-1)?.type).toBe('ExecutionFailed');
    expect(await rows(`t-${step}`)).toEqual([]);
    const name = executionArn.split(':').at(-1) ?? '';
    const said = runner.log.lines.filter((line) => line.includes(name));
    const failing = step === 'reserve' ? 'Reserve' : 'Confirm';
    expect(said).toEqual(
      expect.arrayContaining([expect.stringContaining(`${failing} (Task) failed: Error: caught -> `)]),
    );
    // A state whose error was caught is not said to have succeeded.
    expect(said.filter((line) => line.includes(`${failing} (Task) succeeded`))).toEqual([]);
  });

  test("the refund's first try fails and its Retry runs it again; the Catch put the error beside the input", async () => {
    const executionArn = await order('trip=t-charge&fail=charge');
    const events = await history(executionArn);
    const refund = events.find((event) => event.stateEnteredEventDetails?.name === 'Refund');
    const input = JSON.parse(refund?.stateEnteredEventDetails?.input ?? '{}') as Record<string, unknown>;
    expect(input).toMatchObject({
      trip: 't-charge',
      Reserved: { StatusCode: 200, Payload: { reservation: 't-charge/reservation' } },
      ChargeError: { Error: 'Error', Cause: expect.stringContaining('"errorMessage":"charge refused"') },
    });
    const after = events.slice(events.indexOf(refund as HistoryEvent));
    expect(after.map(({ type }) => type).slice(0, 8)).toEqual([
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
    ]);
  });
});

describe('a REST API starting an express state machine of two parallel jobs (api-gateway-parallel-step-functions)', () => {
  test("a GET with no body: 200, each job's body picked from the Parallel's results", async () => {
    const response = await fetch(`${runner.urlOf(workflowShapes.jobsApi)}/dev/`);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { first: '{"message":"first done"}', second: '{"message":"second done"}' },
    });
  });
});

describe('a schedule rule starting a state machine that polls a job (stepfunctions-job-poller)', () => {
  // "Creating a rule that runs on a schedule in Amazon EventBridge"
  // (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-rule-schedule.html): the target gets the
  // Scheduled Event; "Wait workflow state" (https://docs.aws.amazon.com/step-functions/latest/dg/state-wait.html).
  test('fired now: submit, wait (skipped), status, final status; the output is the job with its id', async () => {
    const started = runner.log.next(/JobPoller-\w+: execution (\S+) started by events:rule\/poll-jobs$/);
    expect(await runner.api.schedules.fire(workflowShapes.pollerRule)).toBe(
      `rule default/${workflowShapes.pollerRule}`,
    );
    const name = /execution (\S+) started/.exec(await started)?.[1] ?? '';
    await runner.log.seen(new RegExp(`JobPoller-\\w+ ${name}: execution succeeded`));
    const { arn: stateMachineArn = '' } =
      runner.api.stateMachines().find((machine) => machine.name.startsWith(workflowShapes.pollerMachine)) ?? {};
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const described = await sfn?.send(new DescribeExecutionCommand({ executionArn }));
    const input = JSON.parse(described?.input ?? '{}') as { id?: string };
    expect(input).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events' });
    expect(JSON.parse(described?.output ?? '{}')).toEqual({ id: input.id, status: 'SUCCEEDED' });
    const events = (await sfn?.send(new GetExecutionHistoryCommand({ executionArn })))?.events ?? [];
    const entered = events.flatMap((event) =>
      event.type?.endsWith('StateEntered') ? [event.stateEnteredEventDetails?.name] : [],
    );
    expect(entered).toEqual(['Submit', 'Pause', 'Status', 'Done?', 'Final status']);
  });
});

describe('a state machine waiting for a child that sends its task token back (sfn-to-sfn-cdk)', () => {
  // "Wait for a Callback with Task Token" (https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token):
  // the task waits until SendTaskSuccess with its token, whose output becomes the task's; "Start a new AWS Step
  // Functions state machine from a running execution" (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-nested-workflows.html).
  test("started with no input: the child runs, sends the token back, and its output is the parent's", async () => {
    const arnOf = (prefix: string) =>
      runner.api.stateMachines().find(({ name }) => name.startsWith(`${prefix}-`))?.arn ?? '';
    const { executionArn = '' } =
      (await sfn?.send(new StartExecutionCommand({ stateMachineArn: arnOf(workflowShapes.parentMachine) }))) ?? {};
    const name = executionArn.split(':').at(-1);
    await runner.log.seen(new RegExp(`Parent-\\w+ ${name}: execution succeeded`));
    const described = await sfn?.send(new DescribeExecutionCommand({ executionArn }));
    expect({ status: described?.status, output: described?.output }).toEqual({
      status: 'SUCCEEDED',
      output: '{"child":"done"}',
    });
    const children = await sfn?.send(
      new ListExecutionsCommand({ stateMachineArn: arnOf(workflowShapes.childMachine) }),
    );
    expect(children?.executions?.map(({ status }) => status)).toEqual(['SUCCEEDED']);
    const events = (await sfn?.send(new GetExecutionHistoryCommand({ executionArn })))?.events ?? [];
    expect(events.map(({ type }) => type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
  });
});
