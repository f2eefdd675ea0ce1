// Step Functions activities on the local services alone, a worker polling through the SDK v3 client: the template's
// AWS::StepFunctions::Activity ("AWS::StepFunctions::Activity", CloudFormation Template Reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-stepfunctions-activity.html:
// Ref returns the ARN, Fn::GetAtt Name the name); ListActivities, DescribeActivity, GetActivityTask (AWS Step
// Functions API Reference, https://docs.aws.amazon.com/step-functions/latest/apireference/API_GetActivityTask.html:
// the worker's long poll answered with a taskToken and the task's input), SendTaskHeartbeat, SendTaskSuccess and
// SendTaskFailure ending the task, a task's TimeoutSeconds (States.Timeout); the history's ActivityScheduled,
// ActivityStarted (the worker's name), ActivitySucceeded, ActivityFailed and ActivityTimedOut ("HistoryEvent",
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html); and a Task naming an activity
// the template does not have, refused at start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeActivityCommand,
  GetActivityTaskCommand,
  GetExecutionHistoryCommand,
  ListActivitiesCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { resolveValue, type ValueContext } from '../../../src/app/intrinsics.ts';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import type { ServiceSeeds } from '../../../src/app/service-resources.ts';
import { activitiesOf, type StateMachineSeed, stateMachinesOf } from '../../../src/app/state-machine-resources.ts';
import { startLocalServices } from '../../../src/services/local-services.ts';
import { localClient } from '../../helpers/local-clients.ts';

const template: ValueContext = {
  stackName: 'App',
  tables: [],
  resources: {
    Review: { Type: 'AWS::StepFunctions::Activity', Properties: { Name: 'review' } },
    // As CDK's StepFunctionsInvokeActivity writes a definition: the activity's Ref joined into DefinitionString.
    Flow: {
      Type: 'AWS::StepFunctions::StateMachine',
      Properties: {
        StateMachineName: 'flow',
        DefinitionString: {
          'Fn::Join': [
            '',
            ['{"StartAt":"R","States":{"R":{"Type":"Task","Resource":"', { Ref: 'Review' }, '","End":true}}}'],
          ],
        },
      },
    },
  },
  exports: new Map(),
};
const reviewArn = 'arn:aws:states:us-east-1:000000000000:activity:review';

const machine = (name: string, task: Record<string, unknown>): StateMachineSeed => ({
  source: `App/${name}`,
  name,
  arn: stateMachineArn(name),
  type: 'EXPRESS',
  definition: {
    StartAt: 'Review',
    States: { Review: { Type: 'Task', Resource: reviewArn, ...task, End: true } },
  },
});

const reviewed = machine('Reviewed', { Parameters: { 'order.$': '$.order' }, ResultPath: '$.review' });
const slow = machine('Slow', { TimeoutSeconds: 1 });

const seeds = (machines: StateMachineSeed[]): ServiceSeeds => ({
  parameters: [],
  secrets: [],
  queues: [],
  stateMachines: machines,
  activities: activitiesOf([template]),
  notices: [],
});

let dataDir = '';
let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'activities-'));
  services = await startLocalServices({ dataDir, seeds: seeds([reviewed, slow]), log: () => undefined });
  sfn = localClient(SFNClient, services.urls.states, { disableHostPrefix: true });
});
afterAll(async () => {
  sfn?.destroy();
  await services?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const historyTypes = async (executionArn: string | undefined) => {
  const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
  return events.filter(({ type }) => String(type).startsWith('Activity'));
};

test('the template’s activity: Ref its ARN (in a definition too), GetAtt Name its name; listed and described', async () => {
  expect(resolveValue({ Ref: 'Review' }, template)).toBe(reviewArn);
  expect(resolveValue({ 'Fn::GetAtt': ['Review', 'Name'] }, template)).toBe('review');
  const [flow] = stateMachinesOf([template], []);
  expect(flow?.definition).toMatchObject({ States: { R: { Resource: reviewArn } } });
  const { activities } = await sfn.send(new ListActivitiesCommand({}));
  expect(activities?.map(({ activityArn, name }) => ({ activityArn, name }))).toEqual([
    { activityArn: reviewArn, name: 'review' },
  ]);
  expect((await sfn.send(new DescribeActivityCommand({ activityArn: reviewArn }))).name).toBe('review');
  await expect(sfn.send(new DescribeActivityCommand({ activityArn: `${reviewArn}-none` }))).rejects.toMatchObject({
    name: 'ActivityDoesNotExist',
  });
});

test('a worker takes the task with its input, beats, and ends it with SendTaskSuccess; the history names each', async () => {
  const polled = sfn.send(new GetActivityTaskCommand({ activityArn: reviewArn, workerName: 'reviewer-1' }));
  const ended = sfn.send(
    new StartSyncExecutionCommand({ stateMachineArn: reviewed.arn, input: JSON.stringify({ order: 7 }) }),
  );
  const task = await polled;
  expect(JSON.parse(task.input ?? '')).toEqual({ order: 7 });
  await sfn.send(new SendTaskHeartbeatCommand({ taskToken: task.taskToken }));
  await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{"approved":true}' }));
  const execution = await ended;
  expect(execution.status).toBe('SUCCEEDED');
  expect(JSON.parse(execution.output ?? '')).toEqual({ order: 7, review: { approved: true } });
  const events = await historyTypes(execution.executionArn);
  expect(events.map(({ type }) => type)).toEqual(['ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded']);
  expect(events[0]?.activityScheduledEventDetails).toMatchObject({ resource: reviewArn, input: '{"order":7}' });
  expect(events[1]?.activityStartedEventDetails).toEqual({ workerName: 'reviewer-1' });
});

test('SendTaskFailure fails the task with the worker’s error; its token is then no longer taken', async () => {
  const ended = sfn.send(new StartSyncExecutionCommand({ stateMachineArn: reviewed.arn, input: '{"order":8}' }));
  const task = await sfn.send(new GetActivityTaskCommand({ activityArn: reviewArn }));
  expect(JSON.parse(task.input ?? '')).toEqual({ order: 8 });
  await sfn.send(new SendTaskFailureCommand({ taskToken: task.taskToken, error: 'Rejected', cause: 'too dear' }));
  const execution = await ended;
  expect(execution).toMatchObject({ status: 'FAILED', error: 'Rejected', cause: 'too dear' });
  await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }))).rejects.toMatchObject(
    { name: 'TaskDoesNotExist' },
  );
  const events = await historyTypes(execution.executionArn);
  expect(events.at(-1)).toMatchObject({
    type: 'ActivityFailed',
    activityFailedEventDetails: { error: 'Rejected', cause: 'too dear' },
  });
});

test('TimeoutSeconds passing before any worker takes the task: ActivityTimedOut, States.Timeout', async () => {
  const execution = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: slow.arn, input: '{}' }));
  expect(execution).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  const events = await historyTypes(execution.executionArn);
  expect(events.map(({ type }) => type)).toEqual(['ActivityScheduled', 'ActivityTimedOut']);
});

test('a Task naming an activity the template does not have refuses the start', async () => {
  const stranger = machine('Stranger', {});
  stranger.definition = JSON.parse(JSON.stringify(stranger.definition).replace(':review', ':nobody'));
  await expect(
    startLocalServices({ dataDir: undefined, seeds: seeds([stranger]), log: () => undefined }),
  ).rejects.toThrow("App/Stranger: its state Review's Resource arn:aws:states:us-east-1:000000000000:activity:nobody");
});
