// API Gateway (REST API, Lambda proxy integrations) on loopback: routing, the TOKEN authorizer, the proxy event v1,
// the mapping of a function's result, limits and time-outs, and every answer the gateway makes itself rendered from
// the template's gateway responses. Each behaviour, with the AWS page it comes from, is in docs/local-runner.md
// ("Gateway semantics"); where this code differs from AWS, this code is wrong.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TokenAuthorizer } from './authorizer.ts';
import { localAws } from './environment.ts';
import type { FunctionPool, InvocationReport } from './function-pool.ts';
import type { LocalApp, LocalGatewayResponse, LocalRoute } from './template.ts';
import { withinTime } from './time-limit.ts';

/** API Gateway's payload limit. */
const maxPayloadBytes = 10 * 1024 * 1024;

/**
 * API Gateway's quota "Total combined size of request line and header values" for REST APIs: 10,240 bytes
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-execution-service-limits-table.html).
 */
export const maxRequestLineAndHeaderValuesBytes = 10_240;

/** Node's own limit on a request's header section, above the quota so the quota decides (with names, CRLFs). */
const nodeMaxHeaderSize = 64 * 1024;

/** Status and message of each answer the gateway makes itself, when the template does not configure it. */
const gatewayDefaults: Record<string, { status: number; message: string }> = {
  ACCESS_DENIED: { status: 403, message: 'Forbidden' },
  AUTHORIZER_CONFIGURATION_ERROR: { status: 500, message: 'Internal server error' },
  AUTHORIZER_FAILURE: { status: 500, message: 'Internal server error' },
  INTEGRATION_TIMEOUT: { status: 504, message: 'Endpoint request timed out' },
  MISSING_AUTHENTICATION_TOKEN: { status: 403, message: 'Missing Authentication Token' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request Too Long' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  // A function that fails or answers malformed: AWS answers 502 {"message": "Internal server error"}.
  DEFAULT_5XX: { status: 502, message: 'Internal server error' },
};

interface Answer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** API Gateway answers application/json unless told otherwise. */
const withContentType = (headers: [string, string][]): [string, string][] =>
  headers.some(([name]) => name.toLowerCase() === 'content-type')
    ? headers
    : [...headers, ['Content-Type', 'application/json']];

/** Renders the gateway's own answer of `type` from the template's gateway responses (or AWS's defaults). */
const gatewayAnswer = (
  responses: Map<string, LocalGatewayResponse>,
  type: string,
  message: string,
  requestId: string,
): Answer => {
  const fallback = gatewayDefaults[type] ?? { status: 500, message };
  const configured = responses.get(type);
  const inherited = responses.get(fallback.status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
  const response = configured ?? inherited;
  const status = configured?.statusCode ?? inherited?.statusCode ?? fallback.status;
  const body =
    response?.template === undefined
      ? json({ message })
      : Buffer.from(
          response.template
            .replaceAll('$context.error.messageString', JSON.stringify(message))
            .replaceAll('$context.error.message', message)
            .replaceAll('$context.error.responseType', type)
            .replaceAll('$context.requestId', requestId),
        );
  return {
    status,
    headers: withContentType([
      ...Object.entries(response?.headers ?? {}),
      ['x-amzn-ErrorType', type],
      ['x-amzn-RequestId', requestId],
    ]),
    body,
  };
};

/**
 * An answer of the runner's own, for what API Gateway refuses before any gateway response applies (oversized or
 * malformed requests): the API's Error shape, so a client never meets a bare body.
 */
const errorAnswer = (status: number, requestId?: string): Answer => ({
  status,
  headers: [
    ['Content-Type', 'application/json'],
    ...(requestId === undefined ? [] : ([['x-amzn-RequestId', requestId]] as [string, string][])),
  ],
  body: json({ error: status, message: STATUS_CODES[status] ?? 'Error' }),
});

/** The answer as raw HTTP/1.1, for a socket Node's HTTP server does not write for us; the connection then closes. */
const rawAnswer = ({ status, headers, body }: Answer) =>
  Buffer.concat([
    Buffer.from(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
        ...headers.map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${body.length}`,
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    ),
    body,
  ]);

/** The bytes API Gateway's header quota counts: the request line and every header value. */
const requestLineAndHeaderValuesBytes = (request: IncomingMessage) => {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let index = 1; index < request.rawHeaders.length; index += 2) {
    bytes += Buffer.byteLength(request.rawHeaders[index] ?? '');
  }
  return bytes;
};

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value);
const proxyResultKeys = new Set(['statusCode', 'headers', 'multiValueHeaders', 'body', 'isBase64Encoded']);

/** A Lambda proxy result as HTTP, or undefined when API Gateway would call it malformed (502). */
const proxyResultToAnswer = (result: unknown): Answer | undefined => {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  const {
    statusCode,
    headers = {},
    multiValueHeaders = {},
    body,
    isBase64Encoded = false,
  } = result as Record<string, unknown>;
  if (Object.keys(result).some((key) => !proxyResultKeys.has(key))) return undefined;
  const status = Number(statusCode);
  if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every(isScalar)) return undefined;
  if (typeof multiValueHeaders !== 'object' || multiValueHeaders === null) return undefined;
  const multi = Object.entries(multiValueHeaders);
  if (!multi.every(([, values]) => Array.isArray(values) && values.every(isScalar))) return undefined;
  if (body !== undefined && body !== null && typeof body !== 'string') return undefined;
  if (typeof isBase64Encoded !== 'boolean') return undefined;

  // `headers` and `multiValueHeaders` merge; for a name in both, `multiValueHeaders` wins.
  const multiNames = new Set(multi.map(([name]) => name.toLowerCase()));
  const merged: [string, string][] = [
    ...Object.entries(headers as Record<string, Scalar>)
      .filter(([name]) => !multiNames.has(name.toLowerCase()))
      .map(([name, value]): [string, string] => [name, String(value)]),
    ...multi.flatMap(([name, values]) => (values as Scalar[]).map((value): [string, string] => [name, String(value)])),
  ];
  const text = typeof body === 'string' ? body : '';
  return { status, headers: withContentType(merged), body: Buffer.from(text, isBase64Encoded ? 'base64' : 'utf8') };
};

interface CompiledRoute extends LocalRoute {
  segments: string[];
}

/** A path segment decoded, or as sent when its percent-encoding is malformed. */
const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The route for a path and method: an exact method before ANY; `{name}` matches one segment, `{name+}` the rest. */
const findRoute = (routes: CompiledRoute[], path: string, method: string) => {
  const segments = path.split('/').filter(Boolean);
  const matches = (route: CompiledRoute) => {
    const parameters: Record<string, string> = {};
    for (const [index, part] of route.segments.entries()) {
      const greedy = /^\{(.+)\+\}$/.exec(part);
      if (greedy?.[1]) {
        if (index >= segments.length) return undefined;
        parameters[greedy[1]] = segments.slice(index).map(decodeSegment).join('/');
        return parameters;
      }
      const segment = segments[index];
      if (segment === undefined) return undefined;
      const parameter = /^\{(.+)\}$/.exec(part);
      if (parameter?.[1]) parameters[parameter[1]] = decodeSegment(segment);
      else if (part !== segment) return undefined;
    }
    return route.segments.length === segments.length ? parameters : undefined;
  };
  for (const wanted of [method, 'ANY']) {
    for (const route of routes.filter((candidate) => candidate.method === wanted)) {
      const parameters = matches(route);
      if (parameters) return { route, parameters };
    }
  }
  return undefined;
};

const requestTime = (date: Date) => {
  const [, day, month, year, time] = /^\w+, (\d+) (\w+) (\d+) ([\d:]+)/.exec(date.toUTCString()) ?? [];
  return `${day}/${month}/${year}:${time} +0000`;
};

/** The client went away before its request was read whole: nothing to answer, nothing the runner did wrong. */
class ClientAbortedError extends Error {
  override name = 'ClientAbortedError';
}

/** Reads the body; past the payload limit it keeps reading (so the client can finish sending) but keeps nothing. */
const readBody = (request: IncomingMessage) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxPayloadBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxPayloadBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', (error) => reject(new ClientAbortedError(error.message)));
  });

/** Header names as the client sent them: `last` keeps each name's last value, `all` every value. */
const headersAsSent = (request: IncomingMessage) => {
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
    new RegExp(
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
const proxyEvent = ({
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

export interface GatewayOptions {
  app: LocalApp;
  pools: Map<string, FunctionPool>;
  authorizers: Map<string, TokenAuthorizer>;
  log: (line: string) => void;
}

export const createGateway = ({ app, pools, authorizers, log }: GatewayOptions): Server => {
  const routes: CompiledRoute[] = app.routes.map((route) => ({
    ...route,
    segments: route.resourcePath.split('/').filter(Boolean),
  }));
  const handle = async (request: IncomingMessage): Promise<{ answer: Answer; notes: string[] }> => {
    const requestId = randomUUID();
    const started = new Date();
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    // What the request log line tells besides method, path, status and time: cold starts and failures.
    const notes: string[] = [];
    const noteColdStart = (functionId: string, report: InvocationReport | undefined) => {
      if (report?.initMs !== undefined) notes.push(`cold start ${functionId}, init ${Math.round(report.initMs)} ms`);
    };
    const gateway = (type: string, message: string) => ({
      answer: gatewayAnswer(app.gatewayResponses, type, message, requestId),
      notes,
    });

    if (requestLineAndHeaderValuesBytes(request) > maxRequestLineAndHeaderValuesBytes) {
      notes.push(`request line and header values over ${maxRequestLineAndHeaderValuesBytes} bytes`);
      return { answer: errorAnswer(431, requestId), notes };
    }
    const body = await readBody(request);
    if (body === undefined) return gateway('REQUEST_TOO_LARGE', 'Request Too Long');
    const found = findRoute(routes, url.pathname, method);
    if (!found) return gateway('MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
    const { route, parameters } = found;

    const headers = headersAsSent(request);
    const methodArn = `arn:aws:execute-api:${localAws.region}:${localAws.accountId}:${app.apiId}/${app.stageName}/${method}${url.pathname}`;

    let authorizer: Record<string, unknown> | undefined;
    if (route.authorizerId !== undefined) {
      const tokenAuthorizer = authorizers.get(route.authorizerId);
      if (!tokenAuthorizer) return gateway('AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
      const authorizerStarted = Date.now();
      const { decision, report } = await tokenAuthorizer.authorize(headers.all, methodArn, requestId);
      noteColdStart(tokenAuthorizer.functionId, report);
      if (!decision.allowed) return gateway(decision.responseType, decision.message);
      authorizer = {
        ...decision.context,
        principalId: decision.principalId,
        integrationLatency: Date.now() - authorizerStarted,
      };
    }
    const event = proxyEvent({ app, request, url, route, parameters, headers, body, requestId, started, authorizer });

    const pool = pools.get(route.functionId);
    if (!pool) return gateway('INTEGRATION_FAILURE', 'Internal server error');
    const report = await withinTime(pool.invoke(event, requestId), route.integrationTimeoutMs);
    if (!report) {
      notes.push(`${route.functionId} did not answer within ${route.integrationTimeoutMs} ms`);
      return gateway('INTEGRATION_TIMEOUT', 'Endpoint request timed out');
    }
    noteColdStart(route.functionId, report);
    const { invocation } = report;
    if (invocation.outcome !== 'result') {
      const reason =
        invocation.outcome === 'error' ? `${invocation.errorType}: ${invocation.message}` : invocation.reason;
      notes.push(`${route.functionId} ${invocation.outcome}: ${reason}`);
      return gateway('DEFAULT_5XX', 'Internal server error');
    }
    const answer = proxyResultToAnswer(invocation.result);
    if (!answer) {
      notes.push(`${route.functionId}: malformed proxy result`);
      return gateway('DEFAULT_5XX', 'Internal server error');
    }
    answer.headers.push(['x-amzn-RequestId', requestId]);
    return { answer, notes };
  };

  const server = createServer({ maxHeaderSize: nodeMaxHeaderSize }, (request, response: ServerResponse) => {
    const started = performance.now();
    // Logged without the query string, which may carry a token.
    const logLine = (outcome: string) =>
      log(`${request.method} ${new URL(request.url ?? '/', 'http://localhost').pathname} ${outcome}`);
    handle(request)
      .then(({ answer, notes }) => {
        // Once the server is closing, close each connection after its answer instead of keeping it alive.
        if (!server.listening) response.shouldKeepAlive = false;
        response.writeHead(answer.status, [...answer.headers, ['Content-Length', String(answer.body.length)]].flat());
        response.end(answer.body);
        const milliseconds = Math.round(performance.now() - started);
        logLine(`${answer.status} ${milliseconds} ms${notes.length ? ` (${notes.join('; ')})` : ''}`);
      })
      .catch((error: unknown) => {
        const milliseconds = Math.round(performance.now() - started);
        if (error instanceof ClientAbortedError) {
          logLine(`- ${milliseconds} ms (the client went away before sending its whole request)`);
          return;
        }
        logLine(`500 ${milliseconds} ms (local runner error: ${error instanceof Error ? error.stack : String(error)})`);
        if (!response.headersSent) {
          const { status, headers, body } = errorAnswer(500);
          response.writeHead(status, headers.flat()).end(body);
        }
      });
  });
  // Requests Node's parser refuses (malformed, or headers over nodeMaxHeaderSize) get the Error shape too, as Node's
  // documentation shows for 'clientError', instead of Node's bare 400 or 431.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    socket.end(rawAnswer(errorAnswer(status)));
    log(`- - ${status} (malformed request: ${error.code ?? error.message})`);
  });
  // CONNECT (a proxy tunnel) is no method of any REST API: API Gateway answers it as an unknown route.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const answer = gatewayAnswer(
      app.gatewayResponses,
      'MISSING_AUTHENTICATION_TOKEN',
      'Missing Authentication Token',
      randomUUID(),
    );
    socket.end(rawAnswer(answer));
    log(`CONNECT - ${answer.status} (no such route)`);
    request.resume();
  });
  return server;
};
