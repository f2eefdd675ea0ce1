// A REST API method's non-proxy integration as the runner serves it ("Integrations for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-integration-settings.html): a Lambda function
// (AWS, its invocations URI), an HTTP endpoint (HTTP, HTTP_PROXY), or an AWS service the runner serves (AWS, an
// `arn:aws:apigateway:<region>:<service>:action/<Action>` or `path/<path>` URI): its request parameters and mapping
// templates, PassthroughBehavior, and integration responses; and a MOCK integration's ("Mock integrations for REST APIs
// in API Gateway", https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration.html), mapped
// the same way. What the runner cannot reproduce is refused, named.

import { payloadReference, templateRefusal } from '../gateway/mapping/template.ts';
import { jsonPathProblem } from '../json-path/index.ts';
import { UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';
import { awsSqsEndpoint } from './local-aws.ts';
import { numberOf, type Where } from './values.ts';

/** The AWS services an AWS integration reaches locally, by the URI's service name, each at its wire endpoint. */
const integratedServices = ['sqs', 'sns', 'events', 'dynamodb', 'kinesis', 'states', 's3'] as const;
export type IntegratedService = (typeof integratedServices)[number];

export type IntegrationTarget =
  | { kind: 'lambda'; functionId: string; qualifier?: string }
  | { kind: 'http'; url: string; method: string; proxy: boolean }
  | { kind: 'aws'; service: IntegratedService; action?: string; path?: string; method: string };

/** An integration's (or integration response's) ContentHandling, which gateway/content-handling.ts applies. */
export type ContentHandling = 'CONVERT_TO_TEXT' | 'CONVERT_TO_BINARY' | undefined;
const contentHandlings: readonly ContentHandling[] = ['CONVERT_TO_TEXT', 'CONVERT_TO_BINARY'];

export interface IntegrationResponse {
  /** Matched against the Lambda error's message, or the HTTP status; undefined: the default response. */
  selectionPattern: RegExp | undefined;
  statusCode: number;
  /** `method.response.header.<name>` by name: its mapping expression (`'literal'`, `integration.response.*`). */
  headers: Record<string, string>;
  /** Response templates by content type. */
  templates: Record<string, string>;
  /** A mock's integration response's ContentHandling (a non-proxy integration's is refused). */
  contentHandling: ContentHandling;
}

export type PassthroughBehavior = 'WHEN_NO_MATCH' | 'WHEN_NO_TEMPLATES' | 'NEVER';

export interface NonProxyIntegration {
  target: IntegrationTarget;
  /** `integration.request.<header|querystring|path>.<name>` by that key: its mapping expression. */
  requestParameters: Record<string, string>;
  /** Request templates by content type (lower case). */
  requestTemplates: Record<string, string>;
  passthrough: PassthroughBehavior;
  responses: IntegrationResponse[];
  integrationTimeoutMs: number;
  /** The role API Gateway would assume (Credentials), noted on each request; no IAM policy is evaluated. */
  credentials: string | undefined;
}

type FunctionOf = (uri: unknown, where: string) => { functionId: string; qualifier?: string };

const passthroughs: readonly PassthroughBehavior[] = ['WHEN_NO_MATCH', 'WHEN_NO_TEMPLATES', 'NEVER'];

/** A mapping expression's refusal: what a request or response parameter may be mapped from. */
const parameterSource =
  /^(?:'[^']*'|method\.request\.(?:path|querystring|header|multivalueheader|multivaluequerystring)\.[^.]+|method\.request\.body(?:\..+)?|integration\.response\.(?:header|multivalueheader)\.[^.]+|integration\.response\.body(?:\..+)?|stageVariables\.\w+|context\.[\w.]+)$/;

const refuseExpression = (where: string, name: string, expression: unknown) => {
  const text = String(expression);
  const jsonPath = /^(?:method\.request|integration\.response)\.body\.(.+)$/.exec(text)?.[1];
  if (typeof expression !== 'string' || !parameterSource.test(text) || (jsonPath && jsonPathProblem(`$.${jsonPath}`)))
    throw new UnsupportedTemplateError(`${where}: parameter ${name} = ${text}`);
};

/** A map of mapping expressions, each checked; `prefix` is what each key must start with. */
const expressionsOf = (value: unknown, where: string, prefix: RegExp) => {
  const entries = Object.entries((value ?? {}) as Record<string, unknown>);
  for (const [name, expression] of entries) {
    if (!prefix.test(name)) throw new UnsupportedTemplateError(`${where}: parameter ${name}`);
    refuseExpression(where, name, expression);
  }
  return Object.fromEntries(entries) as Record<string, string>;
};

/** Templates by content type, each checked (mapping/template.ts): a construct the runner does not render is refused. */
const templatesOf = (value: unknown, where: string) => {
  const templates: Record<string, string> = {};
  for (const [type, template] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    const text = typeof template === 'string' ? template : '';
    const refused = templateRefusal(text);
    if (refused) throw new UnsupportedTemplateError(`${where}: its ${type} template uses ${refused}`);
    templates[type.toLowerCase()] = text;
  }
  return templates;
};

/**
 * ContentHandling: a mock's (whose payloads are text, gateway/content-handling.ts converts them); on a non-proxy
 * integration, whose payloads are text here and binary conversions not applied, refused.
 */
const contentHandlingOf = (value: unknown, where: string, mock: boolean): ContentHandling => {
  const handling = contentHandlings.find((known) => known === value);
  if (value !== undefined && (!mock || handling === undefined))
    throw new UnsupportedTemplateError(`${where}: ContentHandling ${String(value)}`);
  return handling;
};

/**
 * A mock's integration response has no payload AWS documents ("Mock integrations for REST APIs in API Gateway" says
 * nothing of it): a template or parameter that reads it is refused. A method request's parameters
 * (`$input.params`), `$context` and `$stageVariables` are what they are in any template.
 */
const refuseMockPayload = (response: Record<string, unknown>, templates: Record<string, string>, at: string) => {
  for (const [type, template] of Object.entries(templates)) {
    const read = payloadReference(template);
    if (read) throw new UnsupportedTemplateError(`${at}: its ${type} template reads ${read}, a mock's payload`);
  }
  for (const [name, expression] of Object.entries((response.ResponseParameters ?? {}) as Record<string, unknown>))
    if (String(expression).startsWith('integration.response.'))
      throw new UnsupportedTemplateError(`${at}: parameter ${name} = ${String(expression)}, a mock's payload`);
};

/** The integration responses: a SelectionPattern is a Java regular expression matched whole. */
const responsesOf = (value: unknown, where: string, mock: boolean): IntegrationResponse[] =>
  ((value ?? []) as Record<string, unknown>[]).map((response) => {
    const at = `${where} (integration response ${String(response.StatusCode)})`;
    const pattern = response.SelectionPattern;
    const templates = templatesOf(response.ResponseTemplates, at);
    if (mock) refuseMockPayload(response, templates, at);
    return {
      selectionPattern: typeof pattern === 'string' && pattern !== '' ? new RegExp(`^(?:${pattern})$`) : undefined,
      statusCode: Number(response.StatusCode),
      headers: Object.fromEntries(
        Object.entries(expressionsOf(response.ResponseParameters, at, /^method\.response\.header\.[^.]+$/)).map(
          ([name, expression]) => [name.slice('method.response.header.'.length), expression],
        ),
      ),
      templates,
      contentHandling: contentHandlingOf(response.ContentHandling, at, mock),
    };
  });

/** The integration's URI, evaluated; a value with no local value refuses the app, named. */
const uriOf = (integration: Record<string, unknown>, app: ValueContext, id: string) => {
  const uri = evaluatedProperty(integration.Uri, app, `${app.stackName}/${id}`, 'Integration.Uri');
  if (typeof uri !== 'string') throw new UnsupportedTemplateError(`${id}: Integration.Uri ${JSON.stringify(uri)}`);
  return uri;
};

/** An AWS service integration's target: a served service, by action or by path. */
const serviceTarget = (uri: string, method: string, where: string): IntegrationTarget => {
  const [, service = '', kind, rest = ''] = /^arn:[^:]+:apigateway:[^:]*:([^:/]+):(action|path)\/(.*)$/.exec(uri) ?? [];
  const served = integratedServices.find((name) => name === service);
  if (!served)
    throw new UnsupportedTemplateError(
      `${where}: an AWS integration with ${service || uri} (the runner integrates ${integratedServices.join(', ')})`,
    );
  if (kind === 'action') return { kind: 'aws', service: served, action: rest.split('&')[0] ?? rest, method };
  return { kind: 'aws', service: served, path: rest, method };
};

const targetOf = (
  integration: Record<string, unknown>,
  app: ValueContext,
  functionOf: FunctionOf,
  id: string,
  where: string,
): IntegrationTarget => {
  const type = String(integration.Type);
  const method = String(integration.IntegrationHttpMethod ?? 'POST');
  if (type === 'HTTP' || type === 'HTTP_PROXY')
    return { kind: 'http', url: uriOf(integration, app, id), method, proxy: type === 'HTTP_PROXY' };
  if (integration.ConnectionType === 'VPC_LINK')
    throw new UnsupportedTemplateError(`${where}: an integration through a VPC link`);
  const uri = uriOf(integration, app, id);
  if (/^arn:[^:]+:apigateway:[^:]*:lambda:path\//.test(uri))
    return { kind: 'lambda', ...functionOf(integration.Uri, `${id} (Integration.Uri)`) };
  return serviceTarget(uri, method, where);
};

/** The role's name as the template gives it (an ARN, or the role's logical id), for the request's notes. */
const credentialsOf = (value: unknown) => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  return Array.isArray(getAtt) ? `${String(getAtt[0])} (a role of the template)` : JSON.stringify(value);
};

const passthroughOf = (integration: Record<string, unknown>, where: string) => {
  const passthrough = passthroughs.find((known) => known === (integration.PassthroughBehavior ?? 'WHEN_NO_MATCH'));
  if (!passthrough)
    throw new UnsupportedTemplateError(`${where}: PassthroughBehavior ${String(integration.PassthroughBehavior)}`);
  return passthrough;
};

/** An integration's property, evaluated: templates and parameters may hold the template's values (a topic's ARN). */
const evaluatedOf = (integration: Record<string, unknown>, app: ValueContext, id: string) => {
  const withQueues = { ...app, sqsEndpoint: app.sqsEndpoint ?? awsSqsEndpoint };
  return (property: string) =>
    evaluatedProperty(integration[property], withQueues, `${app.stackName}/${id}`, `Integration.${property}`);
};

/** What a mock integration answers, by its templates, PassthroughBehavior and integration responses. */
export interface MockIntegration {
  /** Request templates by content type (lower case): the rendered one's `statusCode` selects the response. */
  requestTemplates: Record<string, string>;
  passthrough: PassthroughBehavior;
  responses: IntegrationResponse[];
  /** The integration's ContentHandling (gateway/content-handling.ts). */
  requestContentHandling: ContentHandling;
}

/** A method's MOCK integration, read and checked; `where` names the method. */
export const readMockIntegration = (
  integration: Record<string, unknown>,
  context: { app: ValueContext; id: string; where: string },
): MockIntegration => {
  const { app, id, where } = context;
  const evaluated = evaluatedOf(integration, app, id);
  return {
    requestTemplates: templatesOf(evaluated('RequestTemplates'), where),
    passthrough: passthroughOf(integration, where),
    responses: responsesOf(evaluated('IntegrationResponses'), where, true),
    requestContentHandling: contentHandlingOf(integration.ContentHandling, where, true),
  };
};

/** A method's non-proxy integration (AWS, HTTP, HTTP_PROXY), read and checked; `where` names the method. */
export const readNonProxyIntegration = (
  integration: Record<string, unknown>,
  context: { app: ValueContext; functionOf: FunctionOf; id: string; where: string },
): NonProxyIntegration => {
  const { app, functionOf, id, where } = context;
  const passthrough = passthroughOf(integration, where);
  if (integration.ContentHandling !== undefined)
    throw new UnsupportedTemplateError(
      `${where}: the integration request's ContentHandling ${String(integration.ContentHandling)}`,
    );
  const at: Where = { resource: id, property: 'Integration.TimeoutInMillis' };
  const evaluated = evaluatedOf(integration, app, id);
  return {
    target: targetOf(integration, app, functionOf, id, where),
    requestParameters: expressionsOf(
      evaluated('RequestParameters'),
      where,
      /^integration\.request\.(?:path|querystring|header|multivalueheader|multivaluequerystring)\.[^.]+$/,
    ),
    requestTemplates: templatesOf(evaluated('RequestTemplates'), where),
    passthrough,
    responses: responsesOf(evaluated('IntegrationResponses'), where, false),
    integrationTimeoutMs: numberOf(integration.TimeoutInMillis, at, 29_000),
    credentials: credentialsOf(integration.Credentials),
  };
};
