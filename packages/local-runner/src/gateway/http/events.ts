// The events an HTTP API's Lambda proxy integration sends ("Working with AWS Lambda proxy integrations for HTTP APIs"):
// payload format 2.0, and 1.0 (a REST API's shape); and the request's parts as its Lambda authorizers get them.
import type { IncomingMessage } from 'node:http';
import type { HttpApi } from '../../app/api.ts';
import type { Stage } from '../../app/cfn.ts';
import type { HttpRoute } from '../../app/http-api.ts';
import { localAws } from '../../app/local-aws.ts';
import { randomText } from '../../random-bytes.ts';
import { headersAsSent, requestTime } from '../proxy-event.ts';

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const decodedPath = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

/** Whether a body of `contentType` reaches the function as text: else it is base64-encoded. */
const isText = (contentType: string | undefined) =>
  contentType === undefined || /^text\/|json|xml|javascript|x-www-form-urlencoded/i.test(contentType);

/** The payload format 2.0 event ("Working with AWS Lambda proxy integrations for HTTP APIs"). */
export const eventV2 = (
  api: Pick<HttpApi, 'apiId'>,
  stage: Pick<Stage, 'name' | 'variables'>,
  request: IncomingMessage,
  url: URL,
  route: Pick<HttpRoute, 'routeKey'>,
  parameters: Record<string, string>,
  body: Buffer,
) => {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = (request.rawHeaders[index] ?? '').toLowerCase();
    const value = request.rawHeaders[index + 1] ?? '';
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean));
    // Hop-by-hop fields end at API Gateway (RFC 9110 section 7.6.1): the captured event has none.
    else if (!hopByHop.has(name)) headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const started = new Date();
  // What API Gateway adds, as in an event captured on AWS (hotsock/voker, vokerhttp/testdata/apigwv2-request.json):
  // the client's address appended to X-Forwarded-For, the port and protocol, and an X-Ray trace header.
  const forwarded = headers['x-forwarded-for'];
  const client = request.socket.remoteAddress ?? '127.0.0.1';
  headers['x-forwarded-for'] = forwarded ? `${forwarded}, ${client}` : client;
  headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= `Root=1-${Math.floor(started.getTime() / 1000)
    .toString(16)
    .padStart(8, '0')}-${randomText(12, 'hex')}`;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  // The path percent-decoded, as captured on AWS (`/capture/space value` for `/capture/space%20value`).
  const path = decodedPath(url.pathname);
  const text = isText(request.headers['content-type']);
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: path,
    rawQueryString: url.search.slice(1),
    ...(cookies.length > 0 && { cookies }),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    requestContext: {
      accountId: localAws.accountId,
      apiId: api.apiId,
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: (request.headers.host ?? 'localhost').split('.')[0],
      http: {
        method: request.method ?? 'GET',
        path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      // API Gateway's id of the request (captured events: 16 characters of base64).
      requestId: randomText(11, 'base64').slice(0, 16),
      routeKey: route.routeKey,
      stage: stage.name,
      time: requestTime(started),
      timeEpoch: started.getTime(),
    },
    ...(body.length > 0 && { body: body.toString(text ? 'utf8' : 'base64') }),
    ...(Object.keys(parameters).length > 0 && { pathParameters: parameters }),
    isBase64Encoded: body.length > 0 && !text,
    ...(Object.keys(stage.variables).length > 0 && { stageVariables: stage.variables }),
  };
};

/**
 * The payload format 1.0 event of an HTTP API ("Working with AWS Lambda proxy integrations for HTTP APIs", its 1.0
 * example): a REST API's shape, `version` "1.0", built from the same request as the 2.0 one (`made`): its path, query,
 * request id and time.
 */
export const eventV1 = (
  made: ReturnType<typeof eventV2>,
  request: IncomingMessage,
  route: Pick<HttpRoute, 'resourcePath' | 'routeKey'>,
  parameters: Record<string, string>,
  authorizer: Record<string, unknown> | undefined,
) => {
  const { last, all } = headersAsSent(request);
  const query = new URLSearchParams(made.rawQueryString);
  const names = [...new Set(query.keys())];
  const { requestContext: context } = made;
  return {
    version: '1.0',
    resource: route.resourcePath,
    path: made.rawPath,
    httpMethod: request.method ?? 'GET',
    headers: last,
    multiValueHeaders: all,
    queryStringParameters:
      names.length > 0 ? Object.fromEntries(names.map((name) => [name, query.getAll(name).at(-1)])) : null,
    multiValueQueryStringParameters:
      names.length > 0 ? Object.fromEntries(names.map((name) => [name, query.getAll(name)])) : null,
    requestContext: {
      accountId: context.accountId,
      apiId: context.apiId,
      ...(authorizer && { authorizer }),
      domainName: context.domainName,
      domainPrefix: context.domainPrefix,
      extendedRequestId: context.requestId,
      httpMethod: context.http.method,
      identity: {
        accessKey: null,
        accountId: null,
        caller: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: context.http.sourceIp,
        user: null,
        userAgent: context.http.userAgent,
        userArn: null,
      },
      path: context.http.path,
      protocol: context.http.protocol,
      requestId: context.requestId,
      requestTime: context.time,
      requestTimeEpoch: context.timeEpoch,
      resourceId: route.routeKey,
      resourcePath: route.resourcePath,
      stage: context.stage,
    },
    pathParameters: Object.keys(parameters).length > 0 ? parameters : null,
    stageVariables: made.stageVariables ?? null,
    body: made.body ?? null,
    isBase64Encoded: made.isBase64Encoded,
  };
};

/** A request's event as a Lambda authorizer gets its parts: no body, the version its own. */
export const authorizerParts = <Event extends { body?: unknown; isBase64Encoded: unknown; version: unknown }>({
  body: _body,
  isBase64Encoded: _encoded,
  version: _version,
  ...parts
}: Event) => parts;
