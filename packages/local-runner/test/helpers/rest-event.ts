/**
 * A REST API's proxy event for GET `path` (the resource the path itself) at the stage `prod`, as the function's API
 * would send it: what a test gives `invoke` as its event file.
 */
export const restProxyEvent = (path: string, headers: Record<string, string> | null = null) => ({
  resource: path,
  path,
  httpMethod: 'GET',
  headers,
  multiValueHeaders: headers && Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: null,
  stageVariables: null,
  requestContext: {
    accountId: '000000000000',
    apiId: 'local',
    stage: 'prod',
    protocol: 'HTTP/1.1',
    identity: { sourceIp: '127.0.0.1' },
    requestId: 'c0ffee00-0000-4000-8000-000000000000',
    requestTime: '01/Jan/2026:00:00:00 +0000',
    requestTimeEpoch: 1767225600000,
    resourcePath: path,
    httpMethod: 'GET',
    path: `/prod${path}`,
  },
  body: null,
  isBase64Encoded: false,
});
