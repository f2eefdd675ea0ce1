// Step Functions' AWS SDK integrations with the local Kinesis and the local SNS ("AWS SDK service integrations",
// Step Functions Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html):
// `aws-sdk:kinesis:putRecord` writes a record GetRecords then reads; `aws-sdk:sns:createTopic` and
// `aws-sdk:sns:listTopics` beyond Publish; a service's error named `<Service>.<Error>` ending in `Exception`, as that
// page's "Learning to use AWS service SDK integrations in Step Functions" says (`Kinesis.ResourceNotFoundException`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../../src/app/local-aws.ts';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import { startLocalServices } from '../../../src/services/local-services.ts';

const task = (resource: string, parameters: Record<string, unknown>, next: string) => ({
  Type: 'Task',
  Resource: `arn:aws:states:::aws-sdk:${resource}`,
  Parameters: parameters,
  ResultPath: `$.${next}`,
});

const definition = {
  StartAt: 'Put',
  States: {
    Put: {
      ...task('kinesis:putRecord', { StreamName: 'clicks', PartitionKey: 'p', 'Data.$': '$.data' }, 'put'),
      Next: 'Iterator',
    },
    Iterator: {
      ...task(
        'kinesis:getShardIterator',
        { StreamName: 'clicks', 'ShardId.$': '$.put.ShardId', ShardIteratorType: 'TRIM_HORIZON' },
        'iterator',
      ),
      Next: 'Read',
    },
    Read: { ...task('kinesis:getRecords', { 'ShardIterator.$': '$.iterator.ShardIterator' }, 'read'), Next: 'Topic' },
    Topic: { ...task('sns:createTopic', { Name: 'made', Attributes: { DisplayName: 'Made' } }, 'topic'), Next: 'List' },
    List: { ...task('sns:listTopics', {}, 'topics'), Next: 'Missing' },
    Missing: {
      ...task('kinesis:describeStreamSummary', { StreamName: 'nowhere' }, 'missing'),
      Catch: [{ ErrorEquals: ['Kinesis.ResourceNotFoundException'], ResultPath: '$.caught', Next: 'Done' }],
      Next: 'Done',
    },
    Done: { Type: 'Pass', End: true },
  },
};

let dataDir = '';
let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sdk-kinesis-sns-'));
  services = await startLocalServices({
    dataDir,
    seeds: {
      parameters: [],
      secrets: [],
      kinesis: [{ source: 'App/Clicks', name: 'clicks', mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 }],
      stateMachines: [{ source: 'App/Sdk', name: 'Sdk', arn: stateMachineArn('Sdk'), type: 'EXPRESS', definition }],
      notices: [],
    },
    log: () => undefined,
  });
  const client = { region: localAws.region, credentials: localAws.credentials };
  sfn = new SFNClient({ ...client, endpoint: services.urls.states, disableHostPrefix: true });
});
afterAll(async () => {
  sfn?.destroy();
  await services?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a state machine writes to Kinesis, reads it back, and calls SNS beyond Publish', async () => {
  const data = Buffer.from('{"page":"home"}').toString('base64');
  const answer = await sfn.send(
    new StartSyncExecutionCommand({ stateMachineArn: stateMachineArn('Sdk'), input: JSON.stringify({ data }) }),
  );
  expect(answer.error).toBeUndefined();
  expect(answer.status).toBe('SUCCEEDED');
  const output = JSON.parse(String(answer.output)) as Record<string, Record<string, unknown>>;
  expect(output.put).toEqual(expect.objectContaining({ ShardId: 'shardId-000000000000' }));
  expect(output.read?.Records).toEqual([expect.objectContaining({ Data: data, PartitionKey: 'p' })]);
  expect(output.topic).toEqual({ TopicArn: `arn:aws:sns:${localAws.region}:${localAws.accountId}:made` });
  expect(output.topics?.Topics).toEqual([{ TopicArn: output.topic?.TopicArn }]);
  expect(output.caught).toEqual(expect.objectContaining({ Error: 'Kinesis.ResourceNotFoundException' }));
});
