// An HTTP API route's first-class AWS service integration (app/http-service-integrations.ts): its request parameters
// filled from the request ("Transforming API requests and responses for HTTP APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-parameter-mapping.html: `$request.body.x`,
// `$request.header.x`, `$request.querystring.x`, `$request.path.x`, `$context.x`, `$stageVariables.x`), the
// subtype's operation called at the service's local endpoint over its JSON protocol, and the service's answer passed
// back with its status. How AWS shapes that answer for each subtype is not documented (docs/gateway.md).
import type { HttpProxyRoute, HttpServiceRoute } from '../../app/http-api.ts';
import { httpMappingExpression } from '../../app/http-service-integrations.ts';
import { selectJsonPath } from '../../json-path/index.ts';
import { callHttp, callService } from '../integration-calls.ts';
import type { HttpResponse } from '../responses.ts';
import type { eventV2 } from './events.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';

type Event = ReturnType<typeof eventV2>;

/** The JSON of the body at `path` (`$request.body.a.b`), as text; the whole body for `$request.body`. */
const bodyValue = (body: string, path: string | undefined) => {
  if (path === undefined) return body;
  try {
    const value = selectJsonPath(JSON.parse(body), `$.${path}`);
    return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return '';
  }
};

/** A dotted path's value in `record`, as text ('' when absent). */
const dotted = (record: unknown, path: string) => {
  const value = path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], record);
  return value === undefined || value === null ? '' : String(value);
};

/** One mapping expression's value for the request `event` (its body, `body`, decoded). */
const expressionValue = (expression: string, event: Event, body: string) => {
  const [, source = '', rest = ''] = /^\$(request\.\w+|context|stageVariables)\.?(.*)$/.exec(expression) ?? [];
  if (source === 'context') return dotted(event.requestContext, rest);
  if (source === 'stageVariables') return event.stageVariables?.[rest] ?? '';
  if (source === 'request.body') return bodyValue(body, rest === '' ? undefined : rest);
  if (source === 'request.path') return event.pathParameters?.[rest] ?? '';
  if (source === 'request.querystring') return event.queryStringParameters?.[rest] ?? '';
  const header = Object.entries(event.headers).find(([name]) => name.toLowerCase() === rest.toLowerCase());
  return header?.[1] ?? '';
};

/** The operation's input: each parameter's value, numbers and JSON structures where the operation takes them. */
const inputOf = (route: HttpServiceRoute, event: Event, body: string) => {
  const values = Object.fromEntries(
    Object.entries(route.service.parameters).map(([name, value]) => [
      name,
      value.replace(httpMappingExpression, (expression) => expressionValue(expression, event, body)),
    ]),
  );
  const typed = (name: string, value: string): unknown =>
    ['DelaySeconds', 'MaxNumberOfMessages', 'VisibilityTimeout', 'WaitTimeSeconds'].includes(name)
      ? Number(value)
      : [
            'MessageAttributes',
            'MessageSystemAttributes',
            'AttributeNames',
            'MessageAttributeNames',
            'Resources',
          ].includes(name)
        ? JSON.parse(value)
        : value;
  const input = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typed(name, value)]));
  if (route.service.service === 'events') return { Entries: [input] };
  // Step Functions' API names its members in camel case (stateMachineArn, input), the subtype's parameters not.
  if (route.service.service === 'states')
    return Object.fromEntries(
      Object.entries(input).map(([name, value]) => [name[0]?.toLowerCase() + name.slice(1), value]),
    );
  return input;
};

/** The route's service called; its answer, or 500 (unreachable, a parameter not of its type) or 503 (time-out). */
export const serviceResponse = async (
  exchange: HttpExchange,
  route: HttpServiceRoute,
  event: Event,
  body: Buffer,
): Promise<HttpResponse> => {
  const { service, target, credentials, subtype, json } = route.service;
  if (credentials) exchange.notes.push(`${subtype} as ${credentials}, whose policies are not evaluated`);
  const endpoint = exchange.deployment.services?.[service];
  if (!endpoint) return ownResponse(500);
  let input: unknown;
  try {
    input = inputOf(route, event, body.toString('utf8'));
  } catch (error) {
    exchange.notes.push(`${subtype}: a parameter is not of its type (${(error as Error).message})`);
    return ownResponse(500);
  }
  const [prefix = '', action = ''] = target.split('.');
  const type = `application/x-amz-json-${json}`;
  const called = await callService(
    endpoint,
    { kind: 'aws', service, action, method: 'POST' },
    {
      headers: { 'X-Amz-Target': `${prefix}.${action}`, 'Content-Type': type },
      querystring: {},
      path: {},
      body: JSON.stringify(input),
    },
    route.integrationTimeoutMs,
  );
  if ('timedOut' in called) return ownResponse(503);
  if (!('answer' in called)) {
    exchange.notes.push('failed' in called ? called.failed : called.refused);
    return ownResponse(500);
  }
  const { status, body: answered } = called.answer;
  return { status, headers: [['Content-Type', 'application/json']], body: Buffer.from(answered) };
};

/**
 * An HTTP_PROXY route: the request's method (or the integration's), headers and body to its URL, `{name}` filled from
 * the route's path parameters, its query string appended; the answer as it comes. Unreachable: 500; past the
 * integration's time-out: 504 ("Create HTTP proxy integrations for HTTP APIs",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-http.html).
 */
export const proxiedResponse = async (
  exchange: HttpExchange,
  route: HttpProxyRoute,
  event: Event,
  body: Buffer,
): Promise<HttpResponse> => {
  const { url: template, method } = route.httpProxy;
  const url = new URL(template.replace(/\{([^}]+?)\+?\}/g, (_, name: string) => event.pathParameters?.[name] ?? ''));
  for (const [name, value] of new URLSearchParams(event.rawQueryString)) url.searchParams.append(name, value);
  const called = await callHttp(
    url,
    { method: method === 'ANY' ? event.requestContext.http.method : method, headers: event.headers, body },
    route.integrationTimeoutMs,
  );
  if ('answer' in called) {
    const { status, headers, body: answered } = called.answer;
    return { status, headers: Object.entries(headers), body: Buffer.from(answered) };
  }
  if ('timedOut' in called)
    return {
      status: 504,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from('{"message":"Gateway Timeout"}'),
    };
  exchange.notes.push('failed' in called ? called.failed : called.refused);
  return ownResponse(500);
};
