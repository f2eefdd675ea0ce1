// The public on-demand prices the cost model uses: US East (N. Virginia), each with its page. They are the prices in
// effect since 2024-11-01 (DynamoDB's on-demand price cut, the newest change among them). This workplace has no
// network to re-read the pages: check them before budgeting.
export const priceList = {
  region: 'us-east-1',
  inEffectSince: '2024-11-01',
  apiGatewayRestPerMillion: { usd: 3.5, page: 'https://aws.amazon.com/api-gateway/pricing/' },
  lambdaRequestsPerMillion: { usd: 0.2, page: 'https://aws.amazon.com/lambda/pricing/' },
  /** arm64, first 7.5 billion GB-seconds a month. */
  lambdaArmPerGbSecond: { usd: 0.0000133334, page: 'https://aws.amazon.com/lambda/pricing/' },
  dynamoDbOnDemandWritePerMillion: { usd: 0.625, page: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  cloudWatchLogsIngestionPerGb: { usd: 0.5, page: 'https://aws.amazon.com/cloudwatch/pricing/' },
  xRayTracesRecordedPerMillion: { usd: 5, page: 'https://aws.amazon.com/xray/pricing/' },
  /** Machine-to-machine (client credentials): each app client allowed the grant, a month; then its token requests. */
  cognitoM2mAppClientPerMonth: { usd: 6, page: 'https://aws.amazon.com/cognito/pricing/' },
  cognitoM2mTokenRequestsPerThousand: { usd: 2.25, page: 'https://aws.amazon.com/cognito/pricing/' },
  /** A standard-resolution alarm, per metric it evaluates (a metric-math alarm pays for each of its metrics). */
  cloudWatchAlarmMetricPerMonth: { usd: 0.1, page: 'https://aws.amazon.com/cloudwatch/pricing/' },
  cloudWatchDashboardPerMonth: { usd: 3, page: 'https://aws.amazon.com/cloudwatch/pricing/' },
  dynamoDbStoragePerGbMonth: { usd: 0.25, page: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  dynamoDbPitrPerGbMonth: { usd: 0.2, page: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
} as const;
