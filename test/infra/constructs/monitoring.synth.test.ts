// Every PlantStoreFunction is watched by default, without wiring: a function added to a stack gets its alarms, a
// dashboard row, and a CodeDeploy deployment that rolls back on its failures and on the API's 5XX rate, whether it is
// created before or after the API is watched. What CodeDeploy does with the group: it rolls back on a listed alarm in
// ALARM while it shifts traffic ("Monitoring deployments with CloudWatch alarms in CodeDeploy",
// https://docs.aws.amazon.com/codedeploy/latest/userguide/monitoring-create-alarms.html).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Monitoring } from '../../../infra/constructs/monitoring.ts';
import { PlantStoreFunction } from '../../../infra/constructs/plant-store-function.ts';

const thresholds = { api5xxRate: 0.01, api4xxRate: 0.25, apiLatencyP99Ms: 3000, integrationLatencyP99Ms: 2500 };

/** A stack with Monitoring, one function created before the API is watched and one after; nothing wired by hand. */
const stackWithTwoOperations = (alarms = true) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: mkdtempSync(join(tmpdir(), 'mon-')) });
  const stack = new Stack(app, 'Watched');
  new Monitoring(stack, Monitoring.id, {
    alarms,
    deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
    thresholds,
  });
  const operation = (id: string) =>
    new PlantStoreFunction(stack, id, {
      entry: 'functions/create-plant/handler.ts',
      description: id,
      logicalId: `${id}Function`,
      timeout: Duration.seconds(6),
      logRetention: RetentionDays.ONE_WEEK,
    });
  const first = operation('First');
  const api = new RestApi(stack, 'Api');
  api.root.addResource('first').addMethod('GET', new LambdaIntegration(first.alias));
  Monitoring.of(stack).watchApi(api);
  const later = operation('Later');
  api.root.addResource('later').addMethod('GET', new LambdaIntegration(later.alias));
  return Template.fromStack(stack);
};

describe('a function added to the stack', () => {
  let template: Template;
  beforeAll(() => {
    template = stackWithTwoOperations();
  });
  const resources = (type: string) => Object.entries(template.findResources(type));
  const alarmsOf = (functionId: string) =>
    resources('AWS::CloudWatch::Alarm').filter(([, { Properties }]) =>
      JSON.stringify(Properties.Dimensions ?? []).includes(`"Ref":"${functionId}"`),
    );
  const api5xx = () =>
    resources('AWS::CloudWatch::Alarm').find(([, { Properties }]) => Properties.MetricName === '5XXError');

  test.each(['FirstFunction', 'LaterFunction'])('%s: errors, throttles and duration near its timeout', (functionId) => {
    const metrics = alarmsOf(functionId).map(([, { Properties }]) => [Properties.MetricName, Properties.Threshold]);
    expect(metrics.sort()).toEqual([
      ['Duration', 4800],
      ['Errors', 0],
      ['Throttles', 0],
    ]);
  });

  test.each(['FirstFunction', 'LaterFunction'])(
    '%s: its canary rolls back on its errors and on the API 5XX rate, whichever came first',
    (functionId) => {
      const errors = alarmsOf(functionId).find(([, { Properties }]) => Properties.MetricName === 'Errors')?.[0];
      const groups = resources('AWS::CodeDeploy::DeploymentGroup').filter(([id]) =>
        id.startsWith(functionId.replace(/Function$/, '')),
      );
      expect(groups).toHaveLength(1);
      const [[, group] = []] = groups;
      expect(group?.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
      expect(group?.Properties.AutoRollbackConfiguration.Events).toContain('DEPLOYMENT_STOP_ON_ALARM');
      const watched = group?.Properties.AlarmConfiguration.Alarms.map(
        ({ Name }: { Name: { Ref: string } }) => Name.Ref,
      );
      expect(watched.sort()).toEqual([errors, api5xx()?.[0]].sort());
    },
  );

  test('every alarm is on the one dashboard, and notifies the one topic', () => {
    const [[, dashboard] = []] = resources('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    const [[topic] = []] = resources('AWS::SNS::Topic');
    for (const [id, { Properties }] of resources('AWS::CloudWatch::Alarm')) {
      expect(body).toContain(id);
      expect(Properties.AlarmActions).toEqual([{ Ref: topic }]);
    }
    expect(resources('AWS::CloudWatch::Alarm')).toHaveLength(3 + 3 + 4);
  });
});

test('without alarms (the dev profile): each function still deploys through CodeDeploy, watching nothing', () => {
  const template = stackWithTwoOperations(false);
  template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'));
  expect(groups).toHaveLength(2);
  for (const group of groups) expect(group.Properties.AlarmConfiguration).toBeUndefined();
});

test('a function in a stack without Monitoring is refused, saying what to create', () => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Unwatched');
  expect(
    () =>
      new PlantStoreFunction(stack, 'Alone', {
        entry: 'functions/create-plant/handler.ts',
        description: 'alone',
        logicalId: 'AloneFunction',
        timeout: Duration.seconds(3),
        logRetention: RetentionDays.ONE_WEEK,
      }),
  ).toThrow("Unwatched/Alone: create the stack's Monitoring (id Monitoring) before its functions");
});
