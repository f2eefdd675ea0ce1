// A REST API's non-proxy integration ("Set up data transformations for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/rest-api-data-transformations.html): the integration
// request mapped (the request template the content type selects, or the body passed through as PassthroughBehavior
// says; the request parameters), the target called (integration-calls.ts), then the integration response its
// SelectionPattern selects (over a Lambda error's message, else the status), with its status, headers and template.
// HTTP_PROXY passes the request and the answer through unmapped.
import type { IntegratedRoute } from '../../app/rest-api.ts';
import type { IntegrationResponse, PassthroughBehavior } from '../../app/rest-integrations.ts';
import {
  type Called,
  callHttp,
  callLambda,
  callService,
  type IntegrationAnswer,
  type IntegrationRequest,
} from '../integration-calls.ts';
import { mappedParameters, mappedValue, type ParameterSources } from '../mapping/parameters.ts';
import { MappingError, type MappingInput, renderTemplate } from '../mapping/template.ts';
import type { HttpResponse } from '../responses.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/** The media type of a Content-Type or an Accept entry, lower case, without its parameters. */
const mediaType = (value: string | undefined) => value?.split(';')[0]?.trim().toLowerCase() || undefined;

/**
 * The request's template by its Content-Type (`application/json` when it sends none), or what PassthroughBehavior
 * says: WHEN_NO_MATCH passes the body through, WHEN_NO_TEMPLATES only when the integration has no template, NEVER
 * never ("Method request behavior for payloads without mapping templates for REST APIs in API Gateway",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/integration-passthrough-behaviors.html): 415 otherwise.
 */
export const requestTemplate = (
  route: { requestTemplates: Record<string, string>; passthrough: PassthroughBehavior },
  contentType: string | undefined,
): Step<string | undefined> => {
  const type = mediaType(contentType) ?? 'application/json';
  const template = route.requestTemplates[type];
  if (template !== undefined) return { next: template };
  const none = Object.keys(route.requestTemplates).length === 0;
  if (route.passthrough === 'WHEN_NO_MATCH' || (route.passthrough === 'WHEN_NO_TEMPLATES' && none))
    return { next: undefined };
  return { responded: { status: 415, headers: [], body: Buffer.alloc(0) } };
};

/**
 * The mapped request: the template's output over the request (or its body), then the request parameters. An empty
 * request is `{}` to the template's `$input.body`, as API Gateway renders it (whatever the content type: seen by
 * localstack/localstack#12413 against AWS; AWS's reference says only "the raw request payload as a string"): CDK's
 * StepFunctionsRestApi template writes `"body": $input.body`, which a GET would otherwise make no JSON.
 */
const integrationRequest = (route: IntegratedRoute, template: string | undefined, input: MappingInput) => {
  const body = template === undefined ? input.body : renderTemplate(template, { ...input, body: input.body || '{}' });
  const sources: ParameterSources = input;
  const override = (input.context.requestOverride ?? {}) as Record<string, Record<string, string>>;
  const of = (part: string) => ({
    ...mappedParameters(route.requestParameters, `integration.request.${part}.`, sources),
    ...override[part],
  });
  return { headers: of('header'), querystring: of('querystring'), path: of('path'), body };
};

/**
 * The URL of an HTTP integration: `${stageVariables.name}` filled from the stage ("Use stage variables for a REST API
 * in API Gateway"), `{name}` from the mapped path parameters, the query string appended.
 */
const httpUrl = (
  template: string,
  request: IntegrationRequest,
  stageVariables: Record<string, string>,
  passedQuery: URLSearchParams | undefined,
) => {
  const staged = template.replace(/\$\{stageVariables\.(\w+)\}/g, (_, name: string) => stageVariables[name] ?? '');
  const url = new URL(staged.replace(/\{([^}]+?)\+?\}/g, (_, name: string) => request.path[name] ?? ''));
  for (const [name, value] of passedQuery ?? []) url.searchParams.append(name, value);
  for (const [name, value] of Object.entries(request.querystring)) url.searchParams.set(name, value);
  return url;
};

/** The integration called with the mapped request. */
const call = async (exchange: Exchange, route: IntegratedRoute, request: IntegrationRequest): Promise<Called> => {
  const { target, integrationTimeoutMs: timeout } = route;
  if (target.kind === 'lambda') {
    const pool = exchange.deployment.pools.get(target.functionId);
    if (!pool) return { failed: `${target.functionId} is not served` };
    return callLambda(pool, target, request, timeout, exchange.notes);
  }
  if (target.kind === 'http') {
    const passed = target.proxy ? exchange.url.searchParams : undefined;
    let url: URL;
    try {
      url = httpUrl(target.url, request, exchange.stage.variables, passed);
    } catch {
      return { failed: `the integration's URL ${target.url} is not a URL for this request` };
    }
    return callHttp(
      url,
      { method: target.proxy ? exchange.method : target.method, headers: request.headers, body: request.body },
      timeout,
    );
  }
  const endpoint = exchange.deployment.services?.[target.service];
  if (!endpoint) return { failed: `the local ${target.service} is not served to this API` };
  return callService(endpoint, target, request, timeout);
};

/**
 * The integration response for `selector` (a Lambda error's message, else the status as text): the first whose pattern
 * matches it, else the default (no pattern).
 */
export const selectedResponse = (responses: IntegrationResponse[], selector: string | undefined) => {
  const matched =
    selector === undefined ? undefined : responses.find(({ selectionPattern }) => selectionPattern?.test(selector));
  return matched ?? responses.find(({ selectionPattern }) => selectionPattern === undefined);
};

/** The response template by the request's Accept (its first type a template has), else application/json's, else the first. */
const responseTemplate = (templates: Record<string, string>, accept: string | undefined) => {
  const accepted = (accept ?? '')
    .split(',')
    .map(mediaType)
    .find((type) => type !== undefined && type in templates);
  const type = accepted ?? ('application/json' in templates ? 'application/json' : Object.keys(templates)[0]);
  return type === undefined ? undefined : { type, template: templates[type] as string };
};

/** `headers` with those of `over` in place of any of the same name (its case ignored), then the rest of `over`. */
const overridden = (headers: [string, string][], over: [string, string][]) => {
  const names = new Set(over.map(([name]) => name.toLowerCase()));
  return [...headers.filter(([name]) => !names.has(name.toLowerCase())), ...over];
};

/**
 * The method response: the selected integration response's status, headers and body, with the overrides the
 * request's templates set ($context.responseOverride, shared by the request and response templates as LocalStack's
 * tests recorded on AWS show: `test_integration_mock_with_response_override_in_request_template`). An override status
 * that is not an HTTP status is ignored.
 */
export const methodResponse = (
  exchange: Exchange,
  response: IntegrationResponse,
  answer: IntegrationAnswer,
  input: MappingInput,
): HttpResponse => {
  const chosen = responseTemplate(response.templates, exchange.request.headers.accept);
  const body = chosen ? renderTemplate(chosen.template, { ...input, body: answer.body }) : answer.body;
  const sources: ParameterSources = { ...input, integration: { headers: answer.headers, body: answer.body } };
  const headers = Object.entries(response.headers).flatMap(([name, expression]) => {
    const value = mappedValue(expression, sources);
    return value === undefined ? [] : [[name, value] as [string, string]];
  });
  const override = (input.context.responseOverride ?? {}) as { status?: unknown; header?: Record<string, unknown> };
  const status = Number(override.status ?? response.statusCode);
  const overrides = Object.entries(override.header ?? {}).map(
    ([name, value]) => [name, String(value)] as [string, string],
  );
  return {
    status: Number.isInteger(status) && status >= 100 && status <= 599 ? status : response.statusCode,
    headers: [
      ...overridden(overridden([['Content-Type', chosen?.type ?? 'application/json']], headers), overrides),
      ['x-amzn-RequestId', exchange.requestId],
    ],
    body: Buffer.from(body),
  };
};

/** An HTTP_PROXY answer, as the endpoint gave it. */
const passedThrough = (exchange: Exchange, answer: IntegrationAnswer): HttpResponse => ({
  status: answer.status,
  headers: [...Object.entries(answer.headers), ['x-amzn-RequestId', exchange.requestId]],
  body: Buffer.from(answer.body),
});

/**
 * The integration request: the template's output (or the body passed through), the mapped parameters; 415 where
 * PassthroughBehavior refuses the content type, 400 where the template reads a body that is not JSON as JSON.
 */
const mappedRequest = (exchange: Exchange, route: IntegratedRoute, input: MappingInput): Step<IntegrationRequest> => {
  const template = requestTemplate(route, exchange.request.headers['content-type']);
  if ('responded' in template) return gatewayResponse(exchange, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type');
  const proxy = route.target.kind === 'http' && route.target.proxy;
  try {
    const request = integrationRequest(route, proxy ? undefined : template.next, input);
    if (proxy) request.headers = { ...input.params.header, ...request.headers };
    return { next: request };
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    exchange.notes.push(error.message);
    return gatewayResponse(exchange, 'BAD_REQUEST_BODY', error.message);
  }
};

/** A configuration error of API Gateway's (500), named in the request's log line as its execution log names it. */
export const configurationError = (exchange: Exchange, what: string) => {
  exchange.notes.push(`Execution failed due to configuration error: ${what}`);
  return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
};

/** The method response of what the call gave: the gateway's own answer when it gave none. */
const answered = (exchange: Exchange, route: IntegratedRoute, called: Called, input: MappingInput): HttpResponse => {
  if ('timedOut' in called)
    return gatewayResponse(exchange, 'INTEGRATION_TIMEOUT', 'Endpoint request timed out').responded;
  if ('refused' in called) {
    const body = Buffer.from(JSON.stringify({ message: called.refused }));
    const headers: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['x-amzn-RequestId', exchange.requestId],
    ];
    return { status: 400, headers, body };
  }
  if ('failed' in called) {
    exchange.notes.push(called.failed);
    return gatewayResponse(exchange, 'INTEGRATION_FAILURE', 'Internal server error').responded;
  }
  const { answer } = called;
  if (route.target.kind === 'http' && route.target.proxy) return passedThrough(exchange, answer);
  const lambda = route.target.kind === 'lambda';
  const response = selectedResponse(route.responses, lambda ? answer.errorMessage : String(answer.status));
  if (!response)
    return configurationError(exchange, 'No match for output mapping and no default output mapping configured');
  try {
    return methodResponse(exchange, response, answer, input);
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    return configurationError(exchange, `Unable to transform response (${error.message})`);
  }
};

/** The route's integration: its request mapped and sent, its answer mapped to the method response. */
export const integrate = async (
  exchange: Exchange,
  route: IntegratedRoute,
  input: MappingInput,
): Promise<HttpResponse> => {
  if (route.credentials) exchange.notes.push(`as ${route.credentials}, whose policies are not evaluated`);
  const request = mappedRequest(exchange, route, input);
  if ('responded' in request) return request.responded;
  return answered(exchange, route, await call(exchange, route, request.next), input);
};

/** What a template renders over, from the request as the proxy event has it (its parameters, its requestContext). */
export const mappingInput = (
  exchange: Exchange,
  event: {
    headers: Record<string, string>;
    queryStringParameters: Record<string, string> | null;
    pathParameters: Record<string, string> | null;
    requestContext: Record<string, unknown>;
  },
  body: Buffer,
): MappingInput => ({
  body: body.toString('utf8'),
  params: { path: event.pathParameters ?? {}, querystring: event.queryStringParameters ?? {}, header: event.headers },
  context: {
    ...event.requestContext,
    requestOverride: { header: {}, querystring: {}, path: {} },
    responseOverride: { header: {} },
  },
  stageVariables: exchange.stage.variables,
});
