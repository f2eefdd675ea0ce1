import { Aws, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
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
import { type ILambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';

/** When an alarm fires (docs/operations.md); each may be set by CDK context. */
export interface AlarmThresholds {
  /** Share of requests answered 5xx in a minute, 2 minutes of 3. */
  api5xxRate: number;
  /** Share of requests answered 4xx in 5 minutes, three periods in a row (clients misbehaving, or a broken client). */
  api4xxRate: number;
  /** p99 of the API's latency in 5 minutes, in milliseconds. */
  apiLatencyP99Ms: number;
  /** p99 of the integrations' latency in 5 minutes, in milliseconds. */
  integrationLatencyP99Ms: number;
}

export interface MonitoringProps {
  /** Alarms, their topic and the dashboard; without them (the dev profile) deployments watch nothing. */
  alarms: boolean;
  /** How every function's new code is deployed (a canary, or all at once). */
  deploymentConfig: ILambdaDeploymentConfig;
  thresholds: AlarmThresholds;
  /** An address the alarms are mailed to (it must confirm the subscription). */
  alarmEmail?: string;
  /**
   * Deploy past the alarms (an emergency fix while one is in ALARM): the deployments keep their alarms but CodeDeploy
   * does not stop on them. The alarms still notify.
   */
  ignoreDeploymentAlarms?: boolean;
}

/** What a function's monitoring needs to know of it. */
export interface WatchedFunction {
  /** Names its alarms, e.g. `CreatePlant`. */
  name: string;
  /** The alias API Gateway calls: its metrics are what callers met, and CodeDeploy shifts it. */
  alias: Alias;
  timeout: Duration;
  /**
   * What counts as the function failing, when Lambda's Errors metric does not say it (an authorizer's refused token is
   * an error to Lambda): a metric of its own, e.g. from a log filter. Default: Lambda's Errors.
   */
  failures?: { metric: IMetric; description: string };
}

const fiveMinutes = { period: Duration.minutes(5) };
const oneMinute = { period: Duration.minutes(1) };

/** One alarm: what it measures, when it fires, and whether deployments roll back while it is in ALARM. */
interface AlarmRow {
  id: string;
  metric: IMetric;
  /** Fires above this. */
  threshold: number;
  description: string;
  /** How many periods it judges (default 1), and how many of them must breach (default all). */
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
  /** `own`: its function's deployment rolls back on it; `every`: every function's does. */
  rollsBack?: 'own' | 'every';
}

// The alarms a deployment watches (rollsBack) judge minutes, not five: CodeDeploy rolls back only while it shifts
// traffic, and a canary's 10 % runs for 5 minutes. Lambda and API Gateway publish these metrics every minute
// (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics.html), so a bad version's first minute of errors
// is in ALARM within about two, while the canary still runs ("Monitoring deployments with CloudWatch alarms in
// CodeDeploy", https://docs.aws.amazon.com/codedeploy/latest/userguide/monitoring-create-alarms.html).

/**
 * What every function of the stack gets by default (docs/operations.md), and the alarms on what the functions share:
 * the API and the table. A function gets its errors (or failures), throttles and duration near its timeout as
 * alarms, a row on the dashboard, and a CodeDeploy deployment of its alias that rolls back on its own failures and on
 * the API's 5XX rate. Every alarm notifies one SNS topic. A PlantStoreFunction finds the stack's one with
 * `Monitoring.of`, so an operation added later is watched without wiring.
 */
export class Monitoring extends Construct {
  static readonly id = 'Monitoring';

  /** The stack's Monitoring, which its functions report to. */
  static of(scope: IConstruct): Monitoring {
    const found = Stack.of(scope).node.tryFindChild(Monitoring.id);
    if (!(found instanceof Monitoring)) {
      throw new Error(`${scope.node.path}: create the stack's Monitoring (id ${Monitoring.id}) before its functions`);
    }
    return found;
  }

  readonly topic: Topic | undefined;
  readonly alarms: Alarm[] = [];
  readonly #props: MonitoringProps;
  readonly #dashboard: Dashboard | undefined;
  readonly #deployments: LambdaDeploymentGroup[] = [];
  /** Alarms every deployment rolls back on (the API's 5XX rate, once the API is watched). */
  readonly #everyDeploymentWatches: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.#props = props;
    if (!props.alarms) return;
    this.topic = this.#alarmTopic(props.alarmEmail);
    // Dashboards are global to an account (AWS::CloudWatch::Dashboard): the region keeps two regions' stacks apart.
    this.#dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}` });
  }

  /** The function's alarms and its deployment (see the class); in `scope`, the function's construct. */
  watchFunction(scope: Construct, { name, alias, timeout, failures }: WatchedFunction): LambdaDeploymentGroup {
    const alarms = this.#alarmRow(scope, [
      failures
        ? { id: 'Failures', ...failures, threshold: 0, rollsBack: 'own' }
        : {
            id: 'Errors',
            metric: alias.metricErrors({ ...oneMinute, statistic: 'Sum' }),
            threshold: 0,
            description: `${name}: invocations failed`,
            rollsBack: 'own',
          },
      {
        id: 'Throttles',
        metric: alias.metricThrottles({ ...fiveMinutes, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: throttled`,
      },
      {
        id: 'DurationNearTimeout',
        metric: alias.metricDuration({ ...fiveMinutes, statistic: 'Maximum' }),
        threshold: timeout.toMilliseconds() * 0.8,
        description: `${name}: an invocation took over 80 % of its timeout`,
      },
    ]);
    // New code reaches the alias through CodeDeploy, which rolls it back when a watched alarm fires meanwhile.
    const deployment = new LambdaDeploymentGroup(scope, 'Deployment', {
      alias,
      deploymentConfig: this.#props.deploymentConfig,
      alarms: [...alarms.own, ...this.#everyDeploymentWatches],
      // AlarmConfiguration.Enabled false: "CodeDeploy ignores the alarm configuration" (CodeDeploy API,
      // https://docs.aws.amazon.com/codedeploy/latest/APIReference/API_AlarmConfiguration.html).
      ignoreAlarmConfiguration: this.#props.ignoreDeploymentAlarms ?? false,
    });
    Validations.of(deployment).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason: "CodeDeploy's role for Lambda deployments uses the managed policy AWS made for exactly it.",
    });
    this.#deployments.push(deployment);
    return deployment;
  }

  /** The API's error rates and latencies; its 5XX rate rolls back every function's deployment. */
  watchApi(api: RestApi) {
    // The 5XX rate asks for 2 of 3 minutes, so one 5xx in a quiet minute does not roll a deployment back.
    this.#alarmRow(this, [
      {
        id: 'Api5xxRate',
        metric: api.metricServerError({ ...oneMinute, statistic: 'Average' }),
        threshold: this.#props.thresholds.api5xxRate,
        description: 'Share of requests the API answered 5xx, in 2 of 3 minutes',
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        rollsBack: 'every',
      },
      {
        id: 'Api4xxRate',
        metric: api.metricClientError({ ...fiveMinutes, statistic: 'Average' }),
        threshold: this.#props.thresholds.api4xxRate,
        description: 'Share of requests the API answered 4xx, for 15 minutes',
        evaluationPeriods: 3,
      },
      {
        id: 'ApiLatencyP99',
        metric: api.metricLatency({ ...fiveMinutes, statistic: 'p99' }),
        threshold: this.#props.thresholds.apiLatencyP99Ms,
        description: 'p99 of the API latency, ms',
      },
      {
        id: 'IntegrationLatencyP99',
        metric: api.metricIntegrationLatency({ ...fiveMinutes, statistic: 'p99' }),
        threshold: this.#props.thresholds.integrationLatencyP99Ms,
        description: 'p99 of the integrations latency, ms',
      },
    ]);
  }

  /** DynamoDB's throttling and system errors on the table's item operations. */
  watchTable(table: Table) {
    this.#alarmRow(this, [
      {
        id: 'TableThrottledRequests',
        metric: sumOverOperations(table, 'ThrottledRequests'),
        threshold: 0,
        description: 'DynamoDB throttled requests on the table',
      },
      {
        id: 'TableSystemErrors',
        metric: sumOverOperations(table, 'SystemErrors'),
        threshold: 0,
        description: 'DynamoDB answered system errors',
      },
    ]);
  }

  /** The rows' alarms in `scope`, notifying the topic, on one dashboard row; none while alarms are off. */
  #alarmRow(scope: Construct, rows: AlarmRow[]) {
    const own: Alarm[] = [];
    if (!this.topic || !this.#dashboard) return { own };
    const created = rows.map((row) => {
      const alarm = new Alarm(scope, row.id, {
        metric: row.metric,
        threshold: row.threshold,
        evaluationPeriods: row.evaluationPeriods ?? 1,
        datapointsToAlarm: row.datapointsToAlarm ?? row.evaluationPeriods ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: row.description,
      });
      alarm.addAlarmAction(new SnsAction(this.topic as Topic));
      this.alarms.push(alarm);
      if (row.rollsBack === 'own') own.push(alarm);
      if (row.rollsBack === 'every') {
        this.#everyDeploymentWatches.push(alarm);
        for (const deployment of this.#deployments) deployment.addAlarm(alarm);
      }
      return alarm;
    });
    // A row is 24 units wide.
    const width = Math.floor(24 / created.length);
    this.#dashboard.addWidgets(...created.map((alarm) => new AlarmWidget({ alarm, width, height: 6 })));
    return { own };
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
}

/**
 * DynamoDB publishes ThrottledRequests and SystemErrors per operation only when they happen: a sum of two such metrics
 * without FILL has no value whenever one of them has none, and the alarm would stay OK ("Using metric math", FILL:
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html).
 */
const sumOverOperations = (table: Table, metricName: string) => {
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
};
