// The Lambda proxy event (v1) API Gateway sends a function for a REST API request.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RestApi } from '../app/api.ts';
import type { Stage } from '../app/cfn.ts';
import { localAws } from '../app/local-aws.ts';
import type { RestRoute } from '../app/rest-api.ts';
import { randomText } from '../random-bytes.ts';
import { isBinaryMediaType } from './content-handling.ts';
import type { IamCaller } from './sigv4.ts';

const shortIds = new Map<string, string>();
/**
 * An id in the shape of API Gateway's for a resource or a deployment (six lower-case letters and digits, as in captured
 * events), the same for the same name (kept: a request's event carries two).
 */
const shortId = (name: string) => {
  let id = shortIds.get(name);
  if (id === undefined) {
    id = createHash('sha256').update(name).digest('hex').slice(0, 6);
    shortIds.set(name, id);
  }
  return id;
};

/** The last second `requestTime` wrote, and its text: requests in the same second share it. */
let lastTime = { second: Number.NaN, text: '' };
/** API Gateway's `requestTime`: `26/Nov/2026:21:00:00 +0000`. */
export const requestTime = (date: Date) => {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastTime.second) {
    const [, day, month, year, time] = /^\w+, (\d+) (\w+) (\d+) ([\d:]+)/.exec(date.toUTCString()) ?? [];
    lastTime = { second, text: `${day}/${month}/${year}:${time} +0000` };
  }
  return lastTime.text;
};

/** Header names as the client sent them: `last` keeps each name's last value, `all` every value. */
export const headersAsSent = (request: IncomingMessage) => {
  const last: Record<string, string> = {};
  const all: Record<string, string[]> = {};
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const [name = '', value = ''] = [request.rawHeaders[index], request.rawHeaders[index + 1]];
    last[name] = value;
    all[name] = [...(all[name] ?? []), value];
  }
  return { last, all };
};

/** The headers below, by their names in lower case. */
const added = new Set(['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto', 'x-amzn-trace-id']);

/**
 * The headers a regional REST API adds before the function sees a request: `X-Forwarded-For` (the client's address
 * appended to any the client sent), `X-Forwarded-Port`, `X-Forwarded-Proto` and `X-Amzn-Trace-Id` (the client's, or
 * a new X-Ray root: `Root=1-<epoch seconds, hex>-<96 random bits, hex>`), each under API Gateway's spelling. Locally
 * the port and protocol are the runner's (http); on AWS they are 443 and https.
 */
const withGatewayHeaders = (
  { all }: ReturnType<typeof headersAsSent>,
  request: IncomingMessage,
  started: Date,
): ReturnType<typeof headersAsSent> => {
  const kept: [string, string[]][] = [];
  const sent: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(all)) {
    const lower = name.toLowerCase();
    if (added.has(lower)) sent[lower] = [...(sent[lower] ?? []), ...values];
    else kept.push([name, values]);
  }
  const [trace] = sent['x-amzn-trace-id'] ?? [];
  const gateway: Record<string, string[]> = {
    'X-Forwarded-For': [[...(sent['x-forwarded-for'] ?? []), request.socket.remoteAddress ?? '127.0.0.1'].join(', ')],
    'X-Forwarded-Port': [String(request.socket.localPort ?? '')],
    'X-Forwarded-Proto': ['http'],
    'X-Amzn-Trace-Id': [
      trace ??
        `Root=1-${Math.floor(started.getTime() / 1000)
          .toString(16)
          .padStart(8, '0')}-${randomText(12, 'hex')}`,
    ],
  };
  const merged = Object.fromEntries([...kept, ...Object.entries(gateway)]);
  return {
    all: merged,
    last: Object.fromEntries(Object.entries(merged).map(([name, values]) => [name, values.at(-1) ?? ''])),
  };
};

/**
 * The fields of a REST proxy event's `requestContext.identity` (and an HTTP API's payload 1.0 one) that an IAM-signed
 * request fills, from its caller (sigv4.ts): as in the event Powertools captured on AWS
 * (aws-powertools/powertools-lambda-typescript, packages/parser/tests/events/apigw-rest/iam-auth.json at 2afa18d:
 * `accessKey`, `accountId`, `caller` and `user` the caller's id, `userArn`; `cognito*` and `principalOrgId` null).
 */
export const iamIdentity = ({ accessKey, accountId, callerId, userId, userArn }: IamCaller) => ({
  accessKey,
  accountId,
  caller: callerId,
  user: userId,
  userArn,
});

interface ProxyEventParts {
  api: RestApi;
  /** The stage the request is served by. */
  stage: Stage;
  request: IncomingMessage;
  url: URL;
  route: RestRoute;
  parameters: Record<string, string>;
  headers: ReturnType<typeof headersAsSent>;
  body: Buffer;
  requestId: string;
  started: Date;
  authorizer: Record<string, unknown> | undefined;
}

/** The Lambda proxy event (v1) API Gateway sends for a REST API request. */
export const proxyEvent = ({
  api,
  stage,
  request,
  url,
  route,
  parameters,
  headers,
  body,
  requestId,
  started,
  authorizer,
}: ProxyEventParts) => {
  const query = [...url.searchParams.keys()];
  const binary = isBinaryMediaType(request.headers['content-type'], api.binaryMediaTypes);
  const delivered = withGatewayHeaders(headers, request, started);
  return {
    resource: route.resourcePath,
    path: url.pathname,
    httpMethod: request.method,
    headers: delivered.last,
    multiValueHeaders: delivered.all,
    queryStringParameters: query.length ? Object.fromEntries(url.searchParams) : null,
    multiValueQueryStringParameters: query.length
      ? Object.fromEntries(query.map((key) => [key, url.searchParams.getAll(key)]))
      : null,
    pathParameters: Object.keys(parameters).length ? parameters : null,
    stageVariables: Object.keys(stage.variables).length ? stage.variables : null,
    requestContext: {
      resourceId: shortId(route.resourcePath),
      resourcePath: route.resourcePath,
      httpMethod: request.method,
      // API Gateway's other id for the request, in its own shape (captured events: 16 characters of base64).
      extendedRequestId: randomText(11, 'base64'),
      requestTime: requestTime(started),
      path: `/${stage.name}${url.pathname}`,
      accountId: localAws.accountId,
      protocol: `HTTP/${request.httpVersion}`,
      stage: stage.name,
      domainPrefix: 'localhost',
      requestTimeEpoch: started.getTime(),
      requestId,
      identity: {
        cognitoIdentityPoolId: null,
        accountId: null,
        cognitoIdentityId: null,
        caller: null,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        principalOrgId: null,
        accessKey: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: null,
        userAgent: request.headers['user-agent'] ?? null,
        user: null,
      },
      domainName: request.headers.host ?? 'localhost',
      deploymentId: shortId(stage.deploymentId),
      apiId: api.apiId,
      ...(authorizer && { authorizer }),
    },
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: body.length > 0 && binary,
  };
};
