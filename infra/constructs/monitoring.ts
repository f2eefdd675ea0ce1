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

/** One alarm: what it measures, when it fires, and which deployments roll back while it is in ALARM. */
interface AlarmRow {
  id: string;
  metric: IMetric;
  /** Fires above this. */
  threshold: number;
  description: string;
  /** How many periods it judges (default 1), and how many of them must breach (default all). */
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
  rollsBack?: ('createPlant' | 'authorizer')[];
}

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
    this.topic = this.#alarmTopic(props.alarmEmail);
    const rows = this.#alarmRows(props);
    for (const row of rows) {
      const alarm = new Alarm(this, row.id, {
        metric: row.metric,
        threshold: row.threshold,
        evaluationPeriods: row.evaluationPeriods ?? 1,
        datapointsToAlarm: row.datapointsToAlarm ?? row.evaluationPeriods ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: row.description,
      });
      alarm.addAlarmAction(new SnsAction(this.topic));
      this.alarms.push(alarm);
    }
    const rollingBack = (deployment: 'createPlant' | 'authorizer') =>
      this.alarms.filter((_alarm, index) => rows[index]?.rollsBack?.includes(deployment));
    this.createPlantDeploymentAlarms = rollingBack('createPlant');
    this.authorizerDeploymentAlarms = rollingBack('authorizer');

    new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      // Rows of three (a dashboard is 24 units wide).
      widgets: Array.from({ length: Math.ceil(this.alarms.length / 3) }, (_, row) =>
        this.alarms.slice(row * 3, row * 3 + 3).map((each) => new AlarmWidget({ alarm: each, width: 8, height: 6 })),
      ),
    });
  }

  /** The topic the alarms notify, which only this account's CloudWatch alarms may publish to. */
  #alarmTopic(alarmEmail: string | undefined) {
    // Not encrypted with a KMS key: CloudWatch cannot publish to a topic under the AWS-managed key (alias/aws/sns),
    // and the topic carries alarm state changes only.
    const topic = new Topic(this, 'AlarmTopic', { displayName: 'Plant Store alarms', enforceSSL: true });
    // enforceSSL writes a topic policy, and a topic policy replaces SNS's default one, which is what let CloudWatch
    // publish: without this statement every alarm's notification is refused. Only this account's alarms may publish
    // ("Why didn't I receive an SNS notification for my CloudWatch alarm trigger?", AWS Knowledge Center,
    // https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccountPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
    if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
    new CfnOutput(Stack.of(this), 'AlarmTopicArn', {
      description: 'The SNS topic the alarms notify',
      value: topic.topicArn,
    });
    return topic;
  }

  /** Every alarm, in the dashboard's order. */
  #alarmRows({ api, createPlant, authorizer, table, thresholds }: MonitoringProps): AlarmRow[] {
    // The alarms a deployment watches (rollsBack) judge minutes, not five: CodeDeploy rolls back only while it shifts
    // traffic, and a canary's 10 % runs for 5 minutes. Lambda and API Gateway publish these metrics every minute
    // (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics.html), so a bad version's first minute of errors
    // is in ALARM within about two, while the canary still runs ("Monitoring deployments with CloudWatch alarms in
    // CodeDeploy", https://docs.aws.amazon.com/codedeploy/latest/userguide/monitoring-create-alarms.html). The 5XX rate
    // asks for 2 of 3 minutes, so one 5xx in a quiet minute does not roll a deployment back.
    const apiAlarms: AlarmRow[] = [
      {
        id: 'Api5xxRate',
        metric: api.metricServerError({ ...oneMinute, statistic: 'Average' }),
        threshold: thresholds.api5xxRate,
        description: 'Share of requests the API answered 5xx, in 2 of 3 minutes',
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        rollsBack: ['createPlant', 'authorizer'],
      },
      {
        id: 'Api4xxRate',
        metric: api.metricClientError({ ...fiveMinutes, statistic: 'Average' }),
        threshold: thresholds.api4xxRate,
        description: 'Share of requests the API answered 4xx, for 15 minutes',
        evaluationPeriods: 3,
      },
      {
        id: 'ApiLatencyP99',
        metric: api.metricLatency({ ...fiveMinutes, statistic: 'p99' }),
        threshold: thresholds.apiLatencyP99Ms,
        description: 'p99 of the API latency, ms',
      },
      {
        id: 'IntegrationLatencyP99',
        metric: api.metricIntegrationLatency({ ...fiveMinutes, statistic: 'p99' }),
        threshold: thresholds.integrationLatencyP99Ms,
        description: 'p99 of the integration (createPlant) latency, ms',
      },
    ];
    // The authorizer's every refused token is a Lambda error (it throws "Unauthorized"): its failures are counted
    // from its logs instead (authorizerFailures).
    const createPlantErrors: AlarmRow = {
      id: 'CreatePlantErrors',
      metric: createPlant.fn.metricErrors({ ...oneMinute, statistic: 'Sum' }),
      threshold: 0,
      description: 'CreatePlant: invocations failed',
      rollsBack: ['createPlant'],
    };
    const functionAlarms = (name: string, { fn, timeout }: MonitoredFunction): AlarmRow[] => [
      {
        id: `${name}Throttles`,
        metric: fn.metricThrottles({ ...fiveMinutes, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: throttled`,
      },
      {
        id: `${name}DurationNearTimeout`,
        metric: fn.metricDuration({ ...fiveMinutes, statistic: 'Maximum' }),
        threshold: timeout.toMilliseconds() * 0.8,
        description: `${name}: an invocation took over 80 % of its timeout`,
      },
    ];
    const tableAlarms: AlarmRow[] = [
      {
        id: 'TableThrottledRequests',
        metric: this.#sumOverOperations(table, 'ThrottledRequests'),
        threshold: 0,
        description: 'DynamoDB throttled requests of createPlant',
      },
      {
        id: 'TableSystemErrors',
        metric: this.#sumOverOperations(table, 'SystemErrors'),
        threshold: 0,
        description: 'DynamoDB answered system errors',
      },
    ];
    return [
      ...apiAlarms,
      createPlantErrors,
      ...functionAlarms('CreatePlant', createPlant),
      ...functionAlarms('Authorizer', authorizer),
      this.#authorizerFailures(authorizer.logGroup),
      ...tableAlarms,
    ];
  }

  /**
   * The authorizer logs "Authorizer failed" at ERROR for everything but a refused token: API Gateway answers 500. Only
   * that line counts. The Lambda runtime logs every rejection itself at ERROR too (its "Invoke Error"; in JSON log
   * format a line whose message is the error object: LogPatch.js of aws-lambda-nodejs-runtime-interface-client), a
   * refused token's `Unauthorized` included, so `$.level = "ERROR"` alone would count every 401.
   */
  #authorizerFailures(logGroup: ILogGroup): AlarmRow {
    const failures = new MetricFilter(this, 'AuthorizerFailureFilter', {
      logGroup,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.message', '=', authorizerFailedMessage),
      ),
      metricNamespace: Stack.of(this).stackName,
      metricName: 'AuthorizerFailures',
      metricValue: '1',
      defaultValue: 0,
    });
    return {
      id: 'AuthorizerFailures',
      metric: failures.metric({ ...oneMinute, statistic: 'Sum' }),
      threshold: 0,
      description: 'The authorizer failed (API Gateway answered 500), e.g. the issuer keys could not be had',
      rollsBack: ['authorizer'],
    };
  }

  /**
   * DynamoDB publishes ThrottledRequests and SystemErrors per operation only when they happen: a sum of two such
   * metrics without FILL has no value whenever one of them has none, and the alarm would stay OK ("Using metric
   * math", FILL: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html).
   */
  #sumOverOperations(table: Table, metricName: string) {
    const ofOperation = (operation: Operation) =>
      table.metric(metricName, {
        ...fiveMinutes,
        statistic: 'Sum',
        dimensionsMap: { TableName: table.tableName, Operation: operation },
      });
    return new MathExpression({
      expression: 'FILL(putItem, 0) + FILL(getItem, 0)',
      usingMetrics: { putItem: ofOperation(Operation.PUT_ITEM), getItem: ofOperation(Operation.GET_ITEM) },
      ...fiveMinutes,
    });
  }
}
