// What matters in the synthesized template (bundling skipped: these tests read the template, not the code).

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { type App, Duration, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bearerHeaderPattern } from '../../functions/bearer-authorizer/bearer.ts';
import { gatewayResponses } from '../../infra/constructs/gateway-responses.ts';
import { PlantStoreStack, type PlantStoreStackProps } from '../../infra/plant-store-stack.ts';
import { contractOperations, functionIdOf, resourcePathsOf } from '../helpers/contract-operations.ts';
import { appWithoutBundling, cdkJsonContext } from '../helpers/synth-app.ts';

// What the stack makes per operation is counted from openapi.yaml, so these tests hold when one is added.
const operations = contractOperations();
const functionIds = [...operations.map(functionIdOf), 'BearerAuthorizerFunction'];
/**
 * The API's 4 (5XX, 4XX, latency, integration latency), the table's 2, the authorizer's failures; Throttles and
 * Duration for every function; Errors for each operation's.
 */
const expectedAlarmCount = 4 + 2 + 1 + 2 * functionIds.length + operations.length;

const synth = (props: PlantStoreStackProps = {}) =>
  Template.fromStack(new PlantStoreStack(appWithoutBundling(), 'Test', props));

let template: Template;
beforeAll(() => {
  template = synth();
});
const resourcesOf = (type: string) => Object.entries(template.findResources(type));
const logicalIdOf = (type: string) => {
  const [entry] = resourcesOf(type);
  if (!entry) throw new Error(`no ${type}`);
  return entry[0];
};

/** The logical id of the `live` alias of a function: what API Gateway calls. */
const liveAliasOf = (functionId: string) => {
  const [id] =
    resourcesOf('AWS::Lambda::Alias').find(
      ([, alias]) => alias.Properties.FunctionName.Ref === functionId && alias.Properties.Name === 'live',
    ) ?? [];
  if (!id) throw new Error(`no live alias of ${functionId}`);
  return id;
};

describe('the API', () => {
  test('a change to the authorizer alone makes a new Deployment, so it reaches the stage', () => {
    // A stage serves the snapshot of its Deployment; a changed AWS::ApiGateway::Authorizer updates nothing live until a
    // new Deployment is made, and CDK makes one only when the Deployment's logical id changes. Without the feature
    // flag @aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId, the id ignores authorizers (aws-cdk #16554).
    const deploymentId = (stack: Template) => Object.keys(stack.findResources('AWS::ApiGateway::Deployment'));
    const other = synth({ authorizerCacheTtl: Duration.seconds(60) });

    expect(deploymentId(template)).toHaveLength(1);
    expect(deploymentId(other)).not.toEqual(deploymentId(template));
    expect(cdkJsonContext['@aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId']).toBe(true);
  });

  test('cdk.json sets every feature flag aws-cdk-lib recommends, as cdk init would', () => {
    const recommended = JSON.parse(
      readFileSync(new URL('../../node_modules/aws-cdk-lib/recommended-feature-flags.json', import.meta.url), 'utf8'),
    );
    expect(cdkJsonContext).toMatchObject(recommended);
  });

  test("API Gateway's execution-log group is the stack's: created before the stage, with retention, removed with it", () => {
    // API Gateway logs to API-Gateway-Execution-Logs_{rest-api-id}/{stage}, which it creates itself (kept forever,
    // left behind by cdk destroy) unless it exists ("Set up CloudWatch logging for REST APIs in API Gateway").
    const api = logicalIdOf('AWS::ApiGateway::RestApi');
    const [[id, group] = []] = Object.entries(template.findResources('AWS::Logs::LogGroup')).filter(
      ([, resource]) =>
        JSON.stringify(resource.Properties.LogGroupName) ===
        JSON.stringify({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: api }, '/v1']] }),
    );
    expect(group).toMatchObject({ DeletionPolicy: 'Delete', Properties: { RetentionInDays: 30 } }); // prod's month
    const [[, stage] = []] = Object.entries(template.findResources('AWS::ApiGateway::Stage'));
    expect(stage?.DependsOn).toContain(id);
  });

  test("has one method per operation of openapi.yaml, each proxied to its function's live alias, behind the TOKEN authorizer", () => {
    template.resourceCountIs('AWS::ApiGateway::Method', operations.length);
    template.resourceCountIs('AWS::ApiGateway::Resource', resourcePathsOf(operations).size);
    const resources = resourcesOf('AWS::ApiGateway::Resource');
    /** The resource of a path, walked from the API's root one segment at a time. */
    const resourceIdOf = (path: string) =>
      path
        .split('/')
        .filter(Boolean)
        .reduce<unknown>(
          (parent, segment) => {
            const [id] =
              resources.find(
                ([, { Properties }]) =>
                  Properties.PathPart === segment && JSON.stringify(Properties.ParentId) === JSON.stringify(parent),
              ) ?? [];
            return { Ref: id };
          },
          { 'Fn::GetAtt': [logicalIdOf('AWS::ApiGateway::RestApi'), 'RootResourceId'] },
        );
    for (const operation of operations) {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: operation.method,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: logicalIdOf('AWS::ApiGateway::Authorizer') },
        ResourceId: resourceIdOf(operation.path),
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: { 'Fn::Join': ['', Match.arrayWith([{ Ref: liveAliasOf(functionIdOf(operation)) }])] },
        },
      });
    }
  });

  test('hands every request body to the function as its bytes (binary media types */*), so none is repaired', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  test('checks the Authorization header for a bearer token and caches results for 300 s by default', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: bearerHeaderPattern,
      AuthorizerResultTtlInSeconds: 300,
      AuthorizerUri: { 'Fn::Join': ['', Match.arrayWith([{ Ref: liveAliasOf('BearerAuthorizerFunction') }])] },
    });
    expect(new RegExp(bearerHeaderPattern).test('Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(new RegExp(bearerHeaderPattern).test('Basic dXNlcjpwYXNz')).toBe(false);
    expect(new RegExp(bearerHeaderPattern).test('Bearer ')).toBe(false);
    // RFC 9110 section 11.1: the scheme is case-insensitive; RFC 6750 section 2.1: one or more spaces after it.
    expect(new RegExp(bearerHeaderPattern).test('bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(new RegExp(bearerHeaderPattern).test('BEARER  eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(new RegExp(bearerHeaderPattern).test('Bearer\teyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(false);
    // RFC 7515 section 7.1: a JWS's compact form is three non-empty base64url parts. Anything else is answered 401
    // without an invocation: the README's placeholder, an opaque token, a JWE's five parts, padding.
    for (const token of [
      'eyJhbGciOiJFUzI1NiIs...',
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
      'opaque-access-token',
      'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d',
      'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln==',
      'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0+.c2ln',
    ]) {
      expect([token, new RegExp(bearerHeaderPattern).test(`Bearer ${token}`)]).toEqual([token, false]);
    }
  });

  test('takes another cache TTL and throttling when given', () => {
    const custom = synth({ authorizerCacheTtl: Duration.seconds(0), throttlingRateLimit: 5, throttlingBurstLimit: 7 });
    custom.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 0 });
    custom.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 7 })],
    });
  });

  test('logs access as JSON and execution at ERROR without data tracing, with metrics and throttling', () => {
    const [[, stage] = []] = resourcesOf('AWS::ApiGateway::Stage');
    const { AccessLogSetting, MethodSettings } = stage?.Properties ?? {};
    const format = JSON.parse(AccessLogSetting.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      principalId: '$context.authorizer.principalId',
      errorResponseType: '$context.error.responseType',
      integrationError: '$context.integration.error',
      authorizerError: '$context.authorizer.error',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integration.latency',
      authorizerLatency: '$context.authorizer.latency',
      xrayTraceId: '$context.xrayTraceId',
    });
    expect(stage?.Properties.TracingEnabled).toBe(true);
    expect(MethodSettings).toEqual([
      {
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        MetricsEnabled: true,
        ThrottlingRateLimit: 50,
        ThrottlingBurstLimit: 100,
      },
    ]);
  });

  test.each(gatewayResponses.map(({ type, status }) => [type.responseType, status] as const))(
    'answers %s itself with status %i and a JSON Error body whose error is that status',
    (type, status) => {
      const responses = template.findResources('AWS::ApiGateway::GatewayResponse', {
        Properties: { ResponseType: type },
      });
      const [response] = Object.values(responses);
      expect(response?.Properties).toMatchObject({
        StatusCode: String(status),
        ResponseParameters: { 'gatewayresponse.header.Content-Type': "'application/json'" },
      });
      // `$context.error.messageString` is a quoted JSON string when API Gateway renders it.
      const rendered = response?.Properties.ResponseTemplates['application/json'].replace(
        '$context.error.messageString',
        '"x"',
      );
      expect(JSON.parse(rendered)).toEqual({ error: status, message: expect.any(String) });
    },
  );

  test('401 and 403 carry bearer challenges as static headers, the only kind API Gateway sends (RFC 6750 section 3)', () => {
    // "Gateway responses in API Gateway": header values are literals or request parameters, nothing per request.
    const challenge = (type: string) =>
      Object.values(
        template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } }),
      )[0]?.Properties.ResponseParameters['gatewayresponse.header.WWW-Authenticate'];
    expect(challenge('UNAUTHORIZED')).toBe(`'Bearer realm="Plant Store"'`);
    expect(challenge('ACCESS_DENIED')).toBe(
      `'Bearer realm="Plant Store", error="insufficient_scope", scope="plants/write"'`,
    );
    expect(challenge('DEFAULT_4XX')).toBeUndefined();
  });

  test('answers every gateway response type there is, so none falls back to a default status', () => {
    const types = gatewayResponses.map(({ type }) => type.responseType);
    // Every response type aws-cdk-lib knows (its ResponseType constants), not a list copied by hand.
    const known = Object.values(ResponseType).filter((value): value is ResponseType => value instanceof ResponseType);
    expect(known.length).toBeGreaterThanOrEqual(21);
    expect(new Set(types)).toEqual(new Set(known.map((type) => type.responseType)));
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', types.length);
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
      ResponseTemplates: { 'application/json': '{"error": 404, "message": "Not found"}' },
    });
  });
});

describe('least privilege', () => {
  const statementsOfRole = (roleLogicalId: string) =>
    Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) =>
        policy.Properties.Roles.some(
          (role: unknown) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId }),
        ),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);

  test('createPlant may only PutItem and GetItem on the table, write its own logs, and send its traces', () => {
    const role = template.findResources('AWS::Lambda::Function').CreatePlantFunction?.Properties.Role['Fn::GetAtt'][0];
    const statements = statementsOfRole(role);
    expect(statements).toEqual([
      {
        Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
        Effect: 'Allow',
        Resource: '*',
      },
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^CreatePlantLogs/), 'Arn'] },
      },
      {
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalIdOf('AWS::DynamoDB::Table'), 'Arn'] },
      },
    ]);
  });

  test('no IAM statement uses a * resource (but X-Ray tracing, which has no resource-level permissions) or action', () => {
    const statements = resourcesOf('AWS::IAM::Policy').flatMap(
      ([, policy]) => policy.Properties.PolicyDocument.Statement,
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const { Action, Resource } of statements) {
      // Only X-Ray's tracing actions, which support no resource-level permissions, take Resource "*".
      if ([Resource].flat().includes('*')) {
        expect([Action].flat().sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      }
      expect([Action].flat().some((action: string) => action.endsWith('*'))).toBe(false);
    }
  });
});

describe('monitoring', () => {
  const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm'));
  /** Alarms on a metric, alone or inside a metric-math expression (DynamoDB's per-operation metrics). */
  const alarmOn = (namespace: string, metricName: string) =>
    alarms().filter(
      ({ Properties }) =>
        (Properties.Namespace === namespace && Properties.MetricName === metricName) ||
        JSON.stringify(Properties.Metrics ?? []).includes(`"MetricName":"${metricName}","Namespace":"${namespace}"`),
    );

  test("docs/operations.md states the API alarms' thresholds, periods and datapoints as the template has them", () => {
    const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').split('\n');
    const rows = [
      ['API 5XX rate', '5XXError', (threshold: number) => `above ${threshold * 100} %`],
      ['API 4XX rate', '4XXError', (threshold: number) => `above ${threshold * 100} %`],
      ['API latency p99', 'Latency', (threshold: number) => `above ${threshold} ms`],
      ['integration latency p99', 'IntegrationLatency', (threshold: number) => `above ${threshold} ms`],
    ] as const;
    for (const [name, metricName, stated] of rows) {
      const [alarm] = alarmOn('AWS/ApiGateway', metricName);
      const { Threshold, Period, EvaluationPeriods, DatapointsToAlarm } = alarm?.Properties ?? {};
      const row = operations.find((line) => line.startsWith(`| ${name} |`)) ?? '';
      const minutes = (count: number) => `${count} minute${count === 1 ? '' : 's'}`;
      const when =
        DatapointsToAlarm === EvaluationPeriods
          ? EvaluationPeriods === 1
            ? ''
            : ` for ${minutes((EvaluationPeriods * Period) / 60)}`
          : ` in ${DatapointsToAlarm} of ${EvaluationPeriods} minutes`;
      // Named by its row when it fails.
      expect({ name, row: row.includes(`| ${minutes(Period / 60)} | ${stated(Threshold)}${when} (`) }).toEqual({
        name,
        row: true,
      });
    }
  });

  test("alarms on the API, each operation's function, the authorizer and the table", () => {
    expect(alarmOn('AWS/ApiGateway', '5XXError')).toHaveLength(1);
    expect(alarmOn('AWS/ApiGateway', '4XXError')).toHaveLength(1);
    expect(alarmOn('AWS/ApiGateway', 'Latency')).toHaveLength(1);
    expect(alarmOn('AWS/ApiGateway', 'IntegrationLatency')).toHaveLength(1);
    // The operations' functions: the authorizer's errors include 401s, so it has none.
    expect(alarmOn('AWS/Lambda', 'Errors')).toHaveLength(operations.length);
    expect(alarmOn('AWS/Lambda', 'Throttles')).toHaveLength(functionIds.length);
    expect(alarmOn('AWS/Lambda', 'Duration')).toHaveLength(functionIds.length);
    expect(alarmOn('AWS/DynamoDB', 'ThrottledRequests')).toHaveLength(1);
    expect(alarmOn('AWS/DynamoDB', 'SystemErrors')).toHaveLength(1);
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.level = "ERROR") && ($.message = "Authorizer failed") }',
      LogGroupName: { Ref: Match.stringLikeRegexp('^BearerAuthorizerFunctionLogs') },
      MetricTransformations: [Match.objectLike({ MetricName: 'AuthorizerFailures', MetricValue: '1' })],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'AuthorizerFailures', Threshold: 0 });
    expect(alarms()).toHaveLength(expectedAlarmCount);
  });

  test('with the documented default thresholds, and duration alarms at 80 % of each timeout', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5XXError',
      Statistic: 'Average',
      Threshold: 0.01,
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Duration', Threshold: 8000 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Duration', Threshold: 4000 });
    const overridden = synth({ alarmThresholds: { api5xxRate: 0.05 } });
    overridden.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: '5XXError', Threshold: 0.05 });
  });

  test('two stacks in one account keep their API alarms apart: each watches its own API by name', () => {
    // API Gateway's metrics are keyed by ApiName (and Stage): two APIs of one name would share them.
    const apiAlarmNames = (stack: Template) => {
      const [[, api] = []] = Object.entries(stack.findResources('AWS::ApiGateway::RestApi'));
      const names = Object.values(stack.findResources('AWS::CloudWatch::Alarm'))
        .filter(({ Properties }) => Properties.Namespace === 'AWS/ApiGateway')
        .map(({ Properties }) => Properties.Dimensions.find(({ Name }: { Name: string }) => Name === 'ApiName').Value);
      return { api: api?.Properties.Name, names: new Set(names) };
    };
    const dev = apiAlarmNames(Template.fromStack(new PlantStoreStack(appWithoutBundling(), 'PlantStoreDev')));
    const prod = apiAlarmNames(Template.fromStack(new PlantStoreStack(appWithoutBundling(), 'PlantStoreProd')));

    expect(dev.names).toEqual(new Set([dev.api]));
    expect(prod.names).toEqual(new Set([prod.api]));
    expect(dev.api).not.toEqual(prod.api);
  });

  test('the DynamoDB alarms fill a missing per-operation metric with 0, so either operation alone can fire them', () => {
    // "Using metric math": without FILL, a sum has no value where one metric has none (DynamoDB publishes
    // ThrottledRequests and SystemErrors only when they occur).
    for (const name of ['ThrottledRequests', 'SystemErrors']) {
      const [alarm] = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(({ Properties }) =>
        (Properties.Metrics ?? []).some(
          (metric: { MetricStat?: { Metric: { MetricName: string } } }) =>
            metric.MetricStat?.Metric.MetricName === name,
        ),
      );
      const metrics = alarm?.Properties.Metrics as { Id: string; Expression?: string; ReturnData?: boolean }[];
      const expression = metrics.find(({ Expression }) => Expression)?.Expression ?? '';
      const inputs = metrics.filter(({ Expression }) => !Expression).map(({ Id }) => Id);
      expect(inputs).toHaveLength(2);
      expect(expression.split('+').map((term) => term.trim())).toEqual(inputs.map((id) => `FILL(${id}, 0)`));
    }
  });

  test('the alarms a deployment watches can fire while its canary runs', () => {
    // CodeDeploy rolls back on an alarm only while it shifts traffic ("Monitoring deployments with CloudWatch alarms
    // in CodeDeploy"); metrics arrive about a minute late. So each watched alarm must be able to reach ALARM within the
    // canary's minutes: its breaching datapoints, plus a minute.
    const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'));
    expect(groups).toHaveLength(functionIds.length);
    for (const group of groups) {
      const config = String(group.Properties.DeploymentConfigName);
      const canaryMinutes = Number(/Canary10Percent(\d+)Minutes$/.exec(config)?.[1]);
      expect(canaryMinutes).toBe(5);
      const watched = (group.Properties.AlarmConfiguration.Alarms as { Name: { Ref: string } }[]).map(
        ({ Name }) => template.toJSON().Resources[Name.Ref].Properties,
      );
      expect(watched.length).toBeGreaterThanOrEqual(2);
      for (const alarm of watched) {
        const secondsToAlarm = alarm.Period * (alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods) + 60;
        expect(secondsToAlarm).toBeLessThanOrEqual(canaryMinutes * 60 - 60);
      }
    }
  });

  test('every alarm notifies the SNS topic, whose ARN is an output; an email subscribes only when given', () => {
    const topic = logicalIdOf('AWS::SNS::Topic');
    for (const { Properties } of alarms()) expect(Properties.AlarmActions).toEqual([{ Ref: topic }]);
    expect(template.toJSON().Outputs.AlarmTopicArn.Value).toEqual({ Ref: topic });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    synth({ alarmEmail: 'ops@example.com' }).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  test('CloudWatch alarms of this account, and no one else, may publish to the topic, over TLS only', () => {
    // A topic policy replaces SNS's default one (AWS Knowledge Center: "Why didn't I receive an SNS notification for
    // my CloudWatch alarm trigger?"): what it allows is all that may publish.
    const topic = logicalIdOf('AWS::SNS::Topic');
    const [[, policy] = []] = resourcesOf('AWS::SNS::TopicPolicy');
    expect(policy?.Properties.Topics).toEqual([{ Ref: topic }]);
    const statements = policy?.Properties.PolicyDocument.Statement as Record<string, unknown>[];
    const allows = statements.filter(({ Effect }) => Effect === 'Allow');
    expect(allows).toEqual([
      {
        Sid: 'CloudWatchAlarmsOfThisAccountPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topic },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      },
    ]);
    // The one Deny applies to requests without TLS only; CloudWatch publishes over TLS.
    expect(statements.filter(({ Effect }) => Effect === 'Deny')).toEqual([
      expect.objectContaining({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  test('one dashboard shows every alarm', () => {
    const [[, dashboard] = []] = resourcesOf('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const [id] of resourcesOf('AWS::CloudWatch::Alarm')) expect(body).toContain(id);
  });
});

describe('safe deploys', () => {
  test("each function's new code reaches its live alias through a CodeDeploy canary that rolls back on alarms", () => {
    const alarmIds = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    const groups = resourcesOf('AWS::CodeDeploy::DeploymentGroup');
    expect(groups).toHaveLength(functionIds.length);
    for (const [, group] of groups) {
      expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
      expect(group.Properties.AutoRollbackConfiguration).toEqual({
        Enabled: true,
        Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'],
      });
      const watched = group.Properties.AlarmConfiguration.Alarms.map(({ Name }: { Name: { Ref: string } }) => Name.Ref);
      expect(watched).toHaveLength(2);
      for (const id of watched) expect(alarmIds).toContain(id);
    }
    for (const functionId of functionIds) {
      const [, alias] = resourcesOf('AWS::Lambda::Alias').find(([id]) => id === liveAliasOf(functionId)) ?? [];
      expect(alias?.UpdatePolicy.CodeDeployLambdaAliasUpdate).toBeDefined();
    }
  });

  test('deploy all at once when the context says so (a dev stage)', () => {
    for (const [, group] of Object.entries(
      synth({ deployment: 'allAtOnce' }).findResources('AWS::CodeDeploy::DeploymentGroup'),
    )) {
      expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    }
  });
});

describe('profiles (context profile)', () => {
  const stageOf = (stack: Template) => Object.values(stack.findResources('AWS::ApiGateway::Stage'))[0]?.Properties;
  const retentions = (stack: Template) =>
    Object.values(stack.findResources('AWS::Logs::LogGroup')).map(({ Properties }) => Properties.RetentionInDays);

  test('prod, the default: stage v1, throttling 50/100, alarms, canary deploys, logs kept 30 days', () => {
    expect(stageOf(template)).toMatchObject({
      StageName: 'v1',
      MethodSettings: [expect.objectContaining({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 })],
    });
    template.resourceCountIs('AWS::CloudWatch::Alarm', expectedAlarmCount);
    expect(new Set(retentions(template))).toEqual(new Set([30]));
  });

  test('dev: stage dev, throttling 10/20, no alarms, deploys all at once, logs kept a week', () => {
    const dev = synth({ profile: 'dev' });
    expect(stageOf(dev)).toMatchObject({
      StageName: 'dev',
      MethodSettings: [expect.objectContaining({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })],
    });
    dev.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    dev.resourceCountIs('AWS::SNS::Topic', 0);
    for (const group of Object.values(dev.findResources('AWS::CodeDeploy::DeploymentGroup'))) {
      expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    }
    expect(new Set(retentions(dev))).toEqual(new Set([7]));
  });

  test('a setting given on its own wins over the profile', () => {
    const dev = synth({ profile: 'dev', throttlingRateLimit: 30, deployment: 'canary' });
    expect(stageOf(dev).MethodSettings[0].ThrottlingRateLimit).toBe(30);
    for (const group of Object.values(dev.findResources('AWS::CodeDeploy::DeploymentGroup'))) {
      expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
    }
  });
});

describe('optional edges, off by default', () => {
  const domain = {
    domainName: 'plants.example.com',
    certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
  };

  test('none without context: no WAF, no custom domain', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });

  test('WAF: common managed rules, a rate limit per IP (429) and a body-size rule (413), on the stage', () => {
    const withWaf = synth({ waf: { rateLimitPer5Minutes: 500 } });
    withWaf.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      AssociationConfig: { RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_64' } } },
      Rules: [
        Match.objectLike({
          Name: 'BodySize',
          Statement: {
            SizeConstraintStatement: Match.objectLike({ ComparisonOperator: 'GT', Size: 65536 }),
          },
          Action: { Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'tooLarge' } } },
        }),
        Match.objectLike({
          Name: 'RatePerIp',
          Statement: { RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP' } },
          Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'tooMany' } } },
        }),
        Match.objectLike({
          Name: 'AwsCommonRules',
          Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' } },
        }),
      ],
    });
    const bodies = Object.values(withWaf.findResources('AWS::WAFv2::WebACL'))[0]?.Properties.CustomResponseBodies;
    expect(JSON.parse(bodies.tooLarge.Content)).toEqual({ error: 413, message: 'Request body is over 65536 bytes' });
    expect(JSON.parse(bodies.tooMany.Content)).toEqual({ error: 429, message: 'Too many requests' });
    withWaf.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  test("docs/deploy.md prices the WAF by the web ACL's rules: as many as the template has", () => {
    // AWS WAF bills each rule of a web ACL a month (a managed rule group counts as one rule).
    const acl = Object.values(synth({ waf: {} }).findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const [, stated] = /\$1 a month for each of its (\d+) rules/.exec(deployDoc) ?? [];
    expect(Number(stated)).toBe(acl.Rules.length);
  });

  test('WAF: a body between 8 KB and the API limit passes; a request without User-Agent too (both rules count)', () => {
    // AWS's common rule set blocks bodies over 8 KB (SizeRestrictions_BODY) and requests without a User-Agent
    // (NoUserAgent_HEADER): "Core rule set (CRS) managed rule group" in the AWS WAF developer guide. A rule set's
    // rule with a Count override only counts; the web ACL's own BodySize rule is what refuses a body (over 64 KiB).
    const acl = Object.values(synth({ waf: {} }).findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    const common = acl.Rules.find(({ Name }: { Name: string }) => Name === 'AwsCommonRules');
    expect(common.OverrideAction).toEqual({ None: {} });
    expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
      { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
    ]);
    const bodySize = acl.Rules.find(({ Name }: { Name: string }) => Name === 'BodySize');
    expect(bodySize.Statement.SizeConstraintStatement.Size).toBe(64 * 1024);
  });

  test('a custom domain with TLS 1.2 mapped to the stage, its URL an output; an alias record only with a zone', () => {
    const withDomain = synth({ customDomain: domain });
    withDomain.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'plants.example.com',
      RegionalCertificateArn: domain.certificateArn,
      SecurityPolicy: 'TLS_1_2',
    });
    withDomain.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    withDomain.resourceCountIs('AWS::Route53::RecordSet', 0);
    expect(withDomain.toJSON().Outputs.CustomDomainUrl.Value).toBe('https://plants.example.com');
    synth({ customDomain: { ...domain, hostedZoneId: 'Z123', hostedZoneName: 'example.com' } }).hasResourceProperties(
      'AWS::Route53::RecordSet',
      { Name: 'plants.example.com.', Type: 'A', HostedZoneId: 'Z123' },
    );
  });
});

describe('no side effect beyond the stack', () => {
  test("API Gateway's account-level CloudWatch role (the account's and region's) is retained by cdk destroy", () => {
    const [roleId] =
      resourcesOf('AWS::IAM::Role').find(([, role]) =>
        JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'),
      ) ?? [];
    expect(roleId).toBeDefined();
    expect(template.findResources('AWS::IAM::Role')[roleId ?? '']).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.hasResource('AWS::ApiGateway::Account', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('the plants table', () => {
  test('is keyed by a numeric id, on demand, with point-in-time recovery, and survives stack deletion', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  test('a failed first create leaves no table behind: RetainExceptOnCreate, and no protection that would refuse it', () => {
    // CloudFormation keeps a `Retain` resource even when its create is rolled back, one table per failed attempt;
    // `RetainExceptOnCreate` deletes it then and keeps it on stack deletion (the DeletionPolicy attribute page).
    // DynamoDB's DeleteTable refuses a table with deletion protection, so that delete would fail with it on.
    const [, table] = resourcesOf('AWS::DynamoDB::Table')[0] ?? [];
    expect(table?.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(table?.Properties.DeletionProtectionEnabled).not.toBe(true);
  });
});

describe('the functions', () => {
  test.each(['CreatePlantFunction', 'BearerAuthorizerFunction'])(
    '%s keeps its logical id and runs Node 24 on arm64 with a JSON-logging log group of its own',
    (logicalId) => {
      const fn = template.findResources('AWS::Lambda::Function')[logicalId];
      expect(fn?.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: expect.any(String) } },
      });
      const logGroup = template.findResources('AWS::Logs::LogGroup')[fn?.Properties.LoggingConfig.LogGroup.Ref];
      expect(logGroup?.Properties.RetentionInDays).toBe(30);
    },
  );

  test("the authorizer names its token-issuer variables for the local runner, in the template's Metadata", () => {
    expect(template.findResources('AWS::Lambda::Function').BearerAuthorizerFunction?.Metadata).toMatchObject({
      'local-runner:token-issuer': {
        issuer: 'JWT_ISSUER',
        audience: 'JWT_AUDIENCE',
        jwksUri: 'JWKS_URI',
        routeScopes: 'ROUTE_SCOPES',
      },
    });
  });

  test('both are traced by X-Ray (active tracing), and reserve no concurrency unless told', () => {
    for (const id of ['CreatePlantFunction', 'BearerAuthorizerFunction']) {
      const { Properties } = template.findResources('AWS::Lambda::Function')[id] ?? {};
      expect(Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  test('reserve the concurrency the context gives each', () => {
    const reserved = synth({ createPlantReservedConcurrency: 20, authorizerReservedConcurrency: 5 });
    const functions = reserved.findResources('AWS::Lambda::Function');
    expect(functions.CreatePlantFunction?.Properties.ReservedConcurrentExecutions).toBe(20);
    expect(functions.BearerAuthorizerFunction?.Properties.ReservedConcurrentExecutions).toBe(5);
  });

  test('neither pays for source maps at each cold start: no NODE_OPTIONS (the maps ship beside the bundles)', () => {
    for (const id of ['CreatePlantFunction', 'BearerAuthorizerFunction']) {
      const { Properties } = template.findResources('AWS::Lambda::Function')[id] ?? {};
      expect(Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
  });

  test('createPlant knows its table and body limit', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: { Ref: logicalIdOf('AWS::DynamoDB::Table') },
          MAX_BODY_BYTES: '65536',
        }),
      },
    });
  });
});

describe('identity', () => {
  test("by default, a Cognito pool for the client-credentials grant that issues each operation's scopes", () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    // openapi.yaml's scopes are Cognito's `<resource server>/<scope>`: one server per prefix, the client may ask each.
    const scopes = [...new Set(operations.flatMap(({ scopes }) => scopes))].sort();
    const servers = Object.values(template.findResources('AWS::Cognito::UserPoolResourceServer'));
    const issued = servers.flatMap(({ Properties }) =>
      Properties.Scopes.map(({ ScopeName }: { ScopeName: string }) => `${Properties.Identifier}/${ScopeName}`),
    );
    expect(issued.sort()).toEqual(scopes);
    expect(logicalIdOf('AWS::Cognito::UserPoolResourceServer')).toMatch(/^IdentityResourceServer/);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthFlowsUserPoolClient: true,
    });
    const [client] = Object.values(template.findResources('AWS::Cognito::UserPoolClient'));
    expect(client?.Properties.AllowedOAuthScopes).toHaveLength(scopes.length);
    template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
    const pool = logicalIdOf('AWS::Cognito::UserPool');
    const authorizerEnvironment =
      template.findResources('AWS::Lambda::Function').BearerAuthorizerFunction?.Properties.Environment.Variables;
    expect(authorizerEnvironment).toMatchObject({
      JWT_ISSUER: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [pool, 'ProviderURL'] }]] },
      JWT_AUDIENCE: { Ref: logicalIdOf('AWS::Cognito::UserPoolClient') },
    });
    // Each route of the contract with the scopes its operation lists (openapi.yaml), as the authorizer reads them.
    expect(JSON.parse(authorizerEnvironment.ROUTE_SCOPES)).toEqual(
      operations.map(({ method, path, scopes }) => ({ method, path, scopes })),
    );
    // Where Cognito publishes a pool's keys (its guide to verifying tokens): given, so no discovery at cold start.
    expect(authorizerEnvironment.JWKS_URI).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [pool, 'ProviderURL'] }, '/.well-known/jwks.json']],
    });
    expect(authorizerEnvironment.JWT_ALGORITHMS).toBeUndefined();
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'ClientId',
      'ClientSecretCommand',
      'TableName',
      'TokenUrl',
    ]);
    expect(JSON.stringify(template.toJSON().Outputs.ClientSecretCommand.Value)).toContain('--region');
  });

  test("with an external issuer, trusts it, creates no pool, and checks scopes in the issuer's names when told", () => {
    const external = synth({
      externalTrust: {
        issuer: 'https://id.example.com/',
        audience: 'plants-api',
        jwksUri: 'https://id.example.com/keys',
      },
      scopes: { 'plants/write': 'plants:write' },
    });
    external.resourceCountIs('AWS::Cognito::UserPool', 0);
    external.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    expect(
      external.findResources('AWS::Lambda::Function').BearerAuthorizerFunction?.Properties.Environment.Variables,
    ).toMatchObject({
      JWT_ISSUER: 'https://id.example.com/',
      JWT_AUDIENCE: 'plants-api',
      JWKS_URI: 'https://id.example.com/keys',
      ROUTE_SCOPES: JSON.stringify([{ method: 'POST', path: '/plants', scopes: ['plants:write'] }]),
    });
    expect(Object.keys(external.toJSON().Outputs).sort()).toEqual(['AlarmTopicArn', 'ApiUrl', 'TableName']);
  });

  test('an external issuer without jwksUri leaves the keys to discovery; its algorithms reach the authorizer', () => {
    const discovered = synth({
      externalTrust: { issuer: 'https://login.example.com/tenant/v2.0', audience: 'api://plants' },
      jwtAlgorithms: ['PS256', 'RS256'],
    });
    const variables =
      discovered.findResources('AWS::Lambda::Function').BearerAuthorizerFunction?.Properties.Environment.Variables;
    expect(variables.JWKS_URI).toBeUndefined();
    expect(variables.JWT_ALGORITHMS).toBe('PS256,RS256');
    // No scope setting with an external issuer: none is checked, as docs/configuration.md says.
    expect(variables.ROUTE_SCOPES).toBeUndefined();
  });

  test.each([
    [
      { 'plants/write': 'Plants.Write', 'plants/delete': 'Plants.Delete' },
      'Context scopes renames plants/delete: no operation needs it',
    ],
    [{}, 'Context scopes names no issuer scope for plants/write (POST /plants)'],
    [{ 'plants/write': 'Plants Write' }, '"Plants Write" is not an OAuth scope'],
  ])('scope names that cannot work stop the synth: %j', (scopes, message) => {
    expect(() => synth({ externalTrust: { issuer: 'https://id.example.com/', audience: 'api' }, scopes })).toThrow(
      message,
    );
  });

  test('renaming scopes without an external issuer stops the synth: the pool issues the contract names', () => {
    expect(() => synth({ scopes: { 'plants/write': 'Plants.Write' } })).toThrow(/only for an external issuer/);
  });
});

describe('the stack name', () => {
  test.each([
    ['MyAwsStore', /Cognito refuses "aws" in its domain prefix/],
    ['AmazonPlants', /Cognito refuses "amazon"/],
    ['CognitoTest', /Cognito refuses "cognito"/],
    ['P'.repeat(51), /at most 50 characters for the Cognito domain prefix/],
  ])('%s stops the synth, naming the Cognito domain prefix rule', (name, message) => {
    expect(() => new PlantStoreStack(appWithoutBundling(), name)).toThrow(message);
  });

  test('is no concern with an external issuer (no Cognito domain)', () => {
    const externalTrust = { issuer: 'https://issuer.example', audience: 'api' };
    expect(() => new PlantStoreStack(appWithoutBundling(), 'MyAwsStore', { externalTrust })).not.toThrow();
  });
});

describe('cdk-nag AwsSolutions', () => {
  const synthWithNag = (build: (app: App) => void) => {
    const app = appWithoutBundling();
    build(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    return () => app.synth();
  };

  test('finds nothing unacknowledged in the stack', () => {
    expect(synthWithNag((app) => new PlantStoreStack(app, 'Nag'))).not.toThrow();
  });

  test('finds nothing unacknowledged with every option on (dev environment, WAF, custom domain)', () => {
    const everything = synthWithNag(
      (app) =>
        new PlantStoreStack(app, 'NagAll', {
          profile: 'dev',
          waf: {},
          customDomain: {
            domainName: 'plants.example.com',
            certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
            hostedZoneId: 'Z123',
            hostedZoneName: 'example.com',
          },
        }),
    );
    expect(everything).not.toThrow();
  });

  test('does fail a synth with a finding (a table without point-in-time recovery)', () => {
    const withFinding = synthWithNag((app) => {
      const stack = new PlantStoreStack(app, 'NagFinding');
      new Table(stack, 'Unprotected', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    });
    expect(withFinding).toThrow(/AwsSolutions-DDB3/);
  });
});
