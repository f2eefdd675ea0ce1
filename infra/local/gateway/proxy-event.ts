// The Lambda proxy event (v1) API Gateway sends a function for a REST API request.
import type { IncomingMessage } from 'node:http';
import { localAws } from '../app/intrinsics.ts';
import type { LocalApp, LocalRoute } from '../app/template.ts';
import { compiledPattern } from './compiled-pattern.ts';

const requestTime = (date: Date) => {
  const [, day, month, year, time] = /^\w+, (\d+) (\w+) (\d+) ([\d:]+)/.exec(date.toUTCString()) ?? [];
  return `${day}/${month}/${year}:${time} +0000`;
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

/**
 * Whether a request's Content-Type is one of the API's binary media types (patterns with `*` wildcards): then API
 * Gateway hands the body to the function base64-encoded, byte for byte, instead of as UTF-8 text.
 */
const isBinary = (contentType: string | undefined, binaryMediaTypes: string[]) => {
  if (contentType === undefined) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((pattern) =>
    compiledPattern(
      `^${pattern
        .toLowerCase()
        .replace(/[.+^${}()|[\]\\?]/g, '\\$&')
        .replaceAll('*', '[^/]*')}$`,
    ).test(type),
  );
};

interface ProxyEventParts {
  app: LocalApp;
  request: IncomingMessage;
  url: URL;
  route: LocalRoute;
  parameters: Record<string, string>;
  headers: ReturnType<typeof headersAsSent>;
  body: Buffer;
  requestId: string;
  started: Date;
  authorizer: Record<string, unknown> | undefined;
}

/** The Lambda proxy event (v1) API Gateway sends for a REST API request. */
export const proxyEvent = ({
  app,
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
  const binary = isBinary(request.headers['content-type'], app.binaryMediaTypes);
  return {
    resource: route.resourcePath,
    path: url.pathname,
    httpMethod: request.method,
    headers: headers.last,
    multiValueHeaders: headers.all,
    queryStringParameters: query.length ? Object.fromEntries(url.searchParams) : null,
    multiValueQueryStringParameters: query.length
      ? Object.fromEntries(query.map((key) => [key, url.searchParams.getAll(key)]))
      : null,
    pathParameters: Object.keys(parameters).length ? parameters : null,
    stageVariables: null,
    requestContext: {
      resourceId: route.resourcePath,
      resourcePath: route.resourcePath,
      httpMethod: request.method,
      extendedRequestId: requestId,
      requestTime: requestTime(started),
      path: `/${app.stageName}${url.pathname}`,
      accountId: localAws.accountId,
      protocol: `HTTP/${request.httpVersion}`,
      stage: app.stageName,
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
        apiKey: null,
        apiKeyId: null,
        clientCert: null,
      },
      domainName: request.headers.host ?? 'localhost',
      apiId: app.apiId,
      ...(authorizer && { authorizer }),
    },
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: body.length > 0 && binary,
  };
};
