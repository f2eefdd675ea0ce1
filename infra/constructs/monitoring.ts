import { Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmWidget,
  ComparisonOperator,
  Dashboard,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { authorizerFailedMessage } from '../../functions/bearer-authorizer/log-messages.ts';

/** When an alarm fires (docs/operations.md); each may be set by CDK context. */
export interface AlarmThresholds {
  /** Share of requests answered 5xx in a minute, 2 minutes of 3. */
  api5xxRate: number;
  /** Share of requests answered 4xx in 5 minutes, three periods in a row (clients misbehaving, or a broken client). */
  api4xxRate: number;
  /** p99 of the API's latency in 5 minutes, in milliseconds. */
  apiLatencyP99Ms: number;
  /** p99 of the integration's (createPlant's) latency in 5 minutes, in milliseconds. */
  integrationLatencyP99Ms: number;
}

export interface MonitoredFunction {
  fn: IFunction;
  timeout: Duration;
}

export interface MonitoringProps {
  api: RestApi;
  createPlant: MonitoredFunction;
  authorizer: MonitoredFunction & { logGroup: ILogGroup };
  table: Table;
  thresholds: AlarmThresholds;
  /** An address the alarms are mailed to (it must confirm the subscription). */
  alarmEmail?: string;
}

const fiveMinutes = { period: Duration.minutes(5) };
const oneMinute = { period: Duration.minutes(1) };

/**
 * The alarms an operator of this service needs, on one SNS topic, and one dashboard that shows them: the API's error
 * rates and latency, each function's errors, throttles and duration near its timeout, the authorizer's failures, and
 * DynamoDB's throttling and system errors.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  /** What a deployment of createPlant watches to roll back: its errors, and the API's 5XX rate. */
  readonly createPlantDeploymentAlarms: Alarm[];
  /** What a deployment of the authorizer watches: its failures, and the API's 5XX rate. */
  readonly authorizerDeploymentAlarms: Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { api, createPlant, authorizer, table, thresholds } = props;
    // Not encrypted with a KMS key: CloudWatch cannot publish to a topic under the AWS-managed key (alias/aws/sns),
    // and the topic carries alarm state changes only.
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'Plant Store alarms', enforceSSL: true });
    // enforceSSL writes a topic policy, and a topic policy replaces SNS's default one, which is what let CloudWatch
    // publish: without this statement every alarm's notification is refused. Only this account's alarms may publish
    // ("Why didn't I receive an SNS notification for my CloudWatch alarm trigger?", AWS Knowledge Center,
    // https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccountPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    new CfnOutput(Stack.of(this), 'AlarmTopicArn', {
      description: 'The SNS topic the alarms notify',
      value: this.topic.topicArn,
    });

    const alarm = (
      name: string,
      metric: IMetric,
      threshold: number,
      description: string,
      { evaluationPeriods = 1, datapointsToAlarm }: { evaluationPeriods?: number; datapointsToAlarm?: number } = {},
    ): Alarm => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods,
        datapointsToAlarm: datapointsToAlarm ?? evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };

    // The alarms a deployment watches (below) judge minutes, not five: CodeDeploy rolls back only while it shifts
    // traffic, and a canary's 10 % runs for 5 minutes. Lambda and API Gateway publish these metrics every minute
    // (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics.html), so a bad version's first minute of errors
    // is in ALARM within about two, while the canary still runs ("Monitoring deployments with CloudWatch alarms in
    // CodeDeploy", https://docs.aws.amazon.com/codedeploy/latest/userguide/monitoring-create-alarms.html). The 5XX rate
    // asks for 2 of 3 minutes, so one 5xx in a quiet minute does not roll a deployment back.
    const api5xxRate = alarm(
      'Api5xxRate',
      api.metricServerError({ ...oneMinute, statistic: 'Average' }),
      thresholds.api5xxRate,
      'Share of requests the API answered 5xx, in 2 of 3 minutes',
      { evaluationPeriods: 3, datapointsToAlarm: 2 },
    );
    alarm(
      'Api4xxRate',
      api.metricClientError({ ...fiveMinutes, statistic: 'Average' }),
      thresholds.api4xxRate,
      'Share of requests the API answered 4xx, for 15 minutes',
      { evaluationPeriods: 3 },
    );
    alarm(
      'ApiLatencyP99',
      api.metricLatency({ ...fiveMinutes, statistic: 'p99' }),
      thresholds.apiLatencyP99Ms,
      'p99 of the API latency, ms',
    );
    alarm(
      'IntegrationLatencyP99',
      api.metricIntegrationLatency({ ...fiveMinutes, statistic: 'p99' }),
      thresholds.integrationLatencyP99Ms,
      'p99 of the integration (createPlant) latency, ms',
    );

    // The authorizer's every refused token is a Lambda error (it throws "Unauthorized"): its failures are counted
    // from its logs below instead.
    const createPlantErrors = alarm(
      'CreatePlantErrors',
      createPlant.fn.metricErrors({ ...oneMinute, statistic: 'Sum' }),
      0,
      'CreatePlant: invocations failed',
    );
    for (const [name, { fn, timeout }] of [
      ['CreatePlant', createPlant],
      ['Authorizer', authorizer],
    ] as const) {
      alarm(`${name}Throttles`, fn.metricThrottles({ ...fiveMinutes, statistic: 'Sum' }), 0, `${name}: throttled`);
      alarm(
        `${name}DurationNearTimeout`,
        fn.metricDuration({ ...fiveMinutes, statistic: 'Maximum' }),
        timeout.toMilliseconds() * 0.8,
        `${name}: an invocation took over 80 % of its timeout`,
      );
    }

    // The authorizer logs "Authorizer failed" at ERROR for everything but a refused token: API Gateway answers 500.
    // Only that line counts. The Lambda runtime logs every rejection itself at ERROR too (its "Invoke Error"; in JSON
    // log format a line whose message is the error object: LogPatch.js of aws-lambda-nodejs-runtime-interface-client),
    // a refused token's `Unauthorized` included, so `$.level = "ERROR"` alone would count every 401.
    const failures = new MetricFilter(this, 'AuthorizerFailureFilter', {
      logGroup: authorizer.logGroup,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.message', '=', authorizerFailedMessage),
      ),
      metricNamespace: Stack.of(this).stackName,
      metricName: 'AuthorizerFailures',
      metricValue: '1',
      defaultValue: 0,
    });
    const authorizerFailures = alarm(
      'AuthorizerFailures',
      failures.metric({ ...oneMinute, statistic: 'Sum' }),
      0,
      'The authorizer failed (API Gateway answered 500), e.g. the issuer keys could not be had',
    );

    // DynamoDB publishes ThrottledRequests and SystemErrors per operation only when they happen: a sum of two such
    // metrics without FILL has no value whenever one of them has none, and the alarm would stay OK ("Using metric
    // math", FILL: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html).
    const ofOperation = (metricName: string, operation: Operation) =>
      table.metric(metricName, {
        ...fiveMinutes,
        statistic: 'Sum',
        dimensionsMap: { TableName: table.tableName, Operation: operation },
      });
    const sumOverOperations = (metricName: string) =>
      new MathExpression({
        expression: 'FILL(putItem, 0) + FILL(getItem, 0)',
        usingMetrics: {
          putItem: ofOperation(metricName, Operation.PUT_ITEM),
          getItem: ofOperation(metricName, Operation.GET_ITEM),
        },
        ...fiveMinutes,
      });
    alarm(
      'TableThrottledRequests',
      sumOverOperations('ThrottledRequests'),
      0,
      'DynamoDB throttled requests of createPlant',
    );
    alarm('TableSystemErrors', sumOverOperations('SystemErrors'), 0, 'DynamoDB answered system errors');

    this.createPlantDeploymentAlarms = [createPlantErrors, api5xxRate];
    this.authorizerDeploymentAlarms = [authorizerFailures, api5xxRate];

    new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      // Rows of three (a dashboard is 24 units wide).
      widgets: Array.from({ length: Math.ceil(this.alarms.length / 3) }, (_, row) =>
        this.alarms.slice(row * 3, row * 3 + 3).map((each) => new AlarmWidget({ alarm: each, width: 8, height: 6 })),
      ),
    });
  }
}
