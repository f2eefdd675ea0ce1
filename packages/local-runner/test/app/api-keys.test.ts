// A REST API's keys as read from a template: those of its usage plans that have its stage, enabled.
import { expect, test } from '@jest/globals';
import { localKeyValue, readApiKeys } from '../../src/app/api-keys.ts';
import type { CfnResource } from '../../src/app/cfn.ts';
import { readStages } from '../../src/app/stages.ts';

const resources: Record<string, CfnResource> = {
  Api: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
  Other: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
  Prod: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' }, StageName: 'prod' } },
  Plan: {
    Type: 'AWS::ApiGateway::UsagePlan',
    Properties: { ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: 'Prod' } }], Quota: { Limit: 100 } },
  },
  OtherPlan: {
    Type: 'AWS::ApiGateway::UsagePlan',
    Properties: { ApiStages: [{ ApiId: { Ref: 'Other' }, Stage: 'v1' }] },
  },
  Enabled: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true, Value: 'an-enabled-key-0123456789' } },
  Generated: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true } },
  Unsaid: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Value: 'a-key-never-enabled-0123' } },
  Elsewhere: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true, Value: 'another-api-key-0123456' } },
  ...Object.fromEntries(
    [
      ['Plan', 'Enabled'],
      ['Plan', 'Generated'],
      ['Plan', 'Unsaid'],
      ['OtherPlan', 'Elsewhere'],
    ].map(([plan, key]) => [
      `${plan}${key}`,
      {
        Type: 'AWS::ApiGateway::UsagePlanKey',
        Properties: { UsagePlanId: { Ref: plan }, KeyId: { Ref: key }, KeyType: 'API_KEY' },
      },
    ]),
  ),
};

test("the keys of the API's plans, enabled (Enabled given true: CloudFormation documents no default), with their stages", () => {
  const { keys, notices } = readApiKeys(resources, 'Api', 'Shop');
  expect(keys).toEqual([
    { id: 'Enabled', value: 'an-enabled-key-0123456789', generated: false, stages: ['prod'] },
    { id: 'Generated', value: localKeyValue('Generated'), generated: true, stages: ['prod'] },
  ]);
  expect(notices).toEqual(["Shop/Plan: a usage plan's quota, which the runner does not apply (429 on AWS)"]);
});

// AWS::ApiGateway::Stage's StageName is optional in the template reference; the runner serves a stage without one
// under one name (src/app/stages.ts), and its usage plans' keys must be recorded for that same name, else every key
// of the plan is refused (403) on the stage it serves.
test("a plan's stage without StageName: its keys are for the name the stage is served under", () => {
  const unnamed: Record<string, CfnResource> = {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
    Unnamed: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' } } },
    Plan: {
      Type: 'AWS::ApiGateway::UsagePlan',
      Properties: { ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: 'Unnamed' } }] },
    },
    Key: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true, Value: 'an-enabled-key-0123456789' } },
    PlanKey: {
      Type: 'AWS::ApiGateway::UsagePlanKey',
      Properties: { UsagePlanId: { Ref: 'Plan' }, KeyId: { Ref: 'Key' }, KeyType: 'API_KEY' },
    },
  };
  const [served] = readStages([['Unnamed', unnamed.Unnamed as CfnResource]], unnamed, 'Api', 'AWS::ApiGateway::Stage');
  expect(readApiKeys(unnamed, 'Api', 'Shop').keys.map(({ stages }) => stages)).toEqual([[served?.name]]);
  expect(served?.name).toBe('local');
});
