// Factories for the events API Gateway sends and the Lambda context, shaped as on AWS (REST API, proxy event v1).
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';

const methodArn = 'arn:aws:execute-api:us-east-1:123456789012:abc123defg/prod/POST/plants';

/** A Lambda context whose remaining time counts down from `timeoutMs`, as Lambda's does. */
export const lambdaContext = (functionName = 'test-function', timeoutMs = 10_000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/11/21/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** A request to any operation, as the proxy integration hands it to the operation's function. */
interface ProxyRequest {
  method: string;
  /** The route's resource, as the template and openapi.yaml write it: `/plants/{id}`, `/files/{proxy+}`. */
  resource: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** Sent as is when a string, else JSON-encoded. */
  body?: unknown;
  headers?: Record<string, string>;
  principalId?: string;
  scope?: string;
  isBase64Encoded?: boolean;
}

export const proxyEvent = ({
  method,
  resource,
  pathParameters,
  query,
  body,
  headers = body === undefined ? {} : { 'Content-Type': 'application/json' },
  principalId = 'user-1',
  scope = 'plants/write',
  isBase64Encoded = false,
}: ProxyRequest): APIGatewayProxyEvent => {
  const path = resource.replace(/\{(\w+)\+?\}/g, (_match, name: string) => pathParameters?.[name] ?? '');
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: pathParameters ?? null,
    stageVariables: null,
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123defg',
      authorizer: { principalId, sub: principalId, scope, clientId: 'client-1' },
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '127.0.0.1',
        user: null,
        userAgent: 'jest',
        userArn: null,
      },
      path: `/prod${path}`,
      stage: 'prod',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
      requestTimeEpoch: 1_790_000_000_000,
      resourceId: 'abc123',
      resourcePath: resource,
    },
  };
};

/** POST /plants. */
export const createPlantEvent = ({
  headers = { 'Content-Type': 'application/json' },
  ...request
}: Omit<ProxyRequest, 'method' | 'resource' | 'pathParameters' | 'query'> = {}): APIGatewayProxyEvent =>
  proxyEvent({ method: 'POST', resource: '/plants', headers, ...request });

export const tokenAuthorizerEvent = (authorizationToken: string): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken,
  methodArn,
});
