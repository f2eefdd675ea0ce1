// What the synthesized stack costs a month before any request, and how the X-Ray share of requests falls with
// traffic: counted from the template, priced by prices.ts. bench.ts writes both into docs/benchmarks.md; a test
// holds that table to the template (test/tools/bench/cost-model.synth.test.ts).
import { priceList } from './prices.ts';

interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

const resourcesOf = ({ Resources }: CfnTemplate, type: string) =>
  Object.values(Resources).filter((resource) => resource.Type === type);

/** What in the template is billed by the month. */
export const monthlyCountsOf = (template: CfnTemplate) => {
  const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm');
  // A metric-math alarm is billed per metric it reads (CloudWatch pricing, "Alarms"); expressions are not metrics.
  const alarmMetrics = alarms.reduce((sum, { Properties = {} }) => {
    const metrics = Properties.Metrics as { MetricStat?: unknown }[] | undefined;
    return sum + (metrics ? metrics.filter((metric) => metric.MetricStat !== undefined).length : 1);
  }, 0);
  const m2mClients = resourcesOf(template, 'AWS::Cognito::UserPoolClient').filter(({ Properties = {} }) =>
    (Properties.AllowedOAuthFlows as string[] | undefined)?.includes('client_credentials'),
  );
  // An access token lasts AccessTokenValidity (in TokenValidityUnits.AccessToken; Cognito's default unit is hours).
  const tokenHours = m2mClients.map(({ Properties = {} }) => {
    const validity = Number(Properties.AccessTokenValidity ?? 1);
    const unit = (Properties.TokenValidityUnits as { AccessToken?: string } | undefined)?.AccessToken ?? 'hours';
    return unit === 'minutes' ? validity / 60 : unit === 'days' ? validity * 24 : validity;
  });
  return {
    alarms: alarms.length,
    alarmMetrics,
    dashboards: resourcesOf(template, 'AWS::CloudWatch::Dashboard').length,
    m2mClients: m2mClients.length,
    /** Token requests a month of one client process that reuses its token until it expires. */
    tokenRequests: tokenHours.reduce((sum, hours) => sum + Math.ceil((30 * 24) / hours), 0),
  };
};

/** The fixed monthly costs: [item, quantity, USD a month]. Storage is per GB stored: storagePerGbMonth. */
export const monthlyRows = (template: CfnTemplate): [string, string, number][] => {
  const counts = monthlyCountsOf(template);
  return [
    [
      'Cognito machine-to-machine app clients',
      `${counts.m2mClients} client(s) allowed the client-credentials grant`,
      counts.m2mClients * priceList.cognitoM2mAppClientPerMonth.usd,
    ],
    [
      'Cognito token requests',
      `${counts.tokenRequests} a month: one client reusing each token until it expires (more clients, more tokens)`,
      (counts.tokenRequests / 1000) * priceList.cognitoM2mTokenRequestsPerThousand.usd,
    ],
    [
      'CloudWatch alarms',
      `${counts.alarms} alarms reading ${counts.alarmMetrics} metrics (metric math counts each)`,
      counts.alarmMetrics * priceList.cloudWatchAlarmMetricPerMonth.usd,
    ],
    [
      'CloudWatch dashboards',
      `${counts.dashboards} (the first 3 of an account are free)`,
      counts.dashboards * priceList.cloudWatchDashboardPerMonth.usd,
    ],
  ];
};

/** A GB of plants a month: DynamoDB's storage and its point-in-time recovery (on for the plants table). */
export const storagePerGbMonth = priceList.dynamoDbStoragePerGbMonth.usd + priceList.dynamoDbPitrPerGbMonth.usd;

/**
 * The share of requests X-Ray records under its default sampling rule: the first request each second (the reservoir)
 * and 5 % of the rest ("Sampling rules", https://docs.aws.amazon.com/xray/latest/devguide/xray-console-sampling.html).
 * With `perMonth` requests spread evenly, fewer than one a second are all recorded.
 */
export const xRayRecordedShare = (perMonth: number) => {
  const perSecond = perMonth / (30 * 24 * 3600);
  return (Math.min(perSecond, 1) + 0.05 * Math.max(perSecond - 1, 0)) / perSecond;
};

/** The monthly rows as docs/benchmarks.md shows them, with their total. */
export const monthlyTable = (rows: [string, string, number][]) =>
  [
    '| item | quantity | USD a month |',
    '|---|---|---|',
    ...rows.map(([item, quantity, usd]) => `| ${item} | ${quantity} | ${usd.toFixed(2)} |`),
    `| **total** | | **${rows.reduce((sum, [, , usd]) => sum + usd, 0).toFixed(2)}** |`,
  ].join('\n');
