// A WebSocket API of the template (AWS::ApiGatewayV2::Api, ProtocolType WEBSOCKET) as the runner serves it: its
// routes (`$connect`, `$disconnect`, `$default` and custom route keys, "Working with routes for WebSocket APIs"), the
// RouteSelectionExpression that picks a message's route (`$request.body.<path>`), their Lambda proxy integrations
// (AWS_PROXY), a route response where the route asks for one, its stages, and a REQUEST authorizer on `$connect`
// ("Control access to WebSocket APIs with AWS Lambda REQUEST authorizers"). What the runner does not serve of it is
// refused, naming the resource and the property.
import { type CfnResource, type IdentitySource, props, type Stage, UnsupportedTemplateError } from './cfn.ts';
import { type FunctionOfUri, integrationOf, resourcesOfApi } from './http-api.ts';
import type { ValueContext } from './intrinsics.ts';
import { webSocketModelSchema } from './request-validation.ts';
import type { LambdaAuthorizerDefinition } from './rest-api.ts';
import { readStages } from './stages.ts';
import { booleanOf, numberOf, referencedId, refuseAuthorizerWithoutType, stringOf, stringsOf } from './values.ts';

export interface WebSocketRoute {
  /** `$connect`, `$disconnect`, `$default`, or a custom key a message's selection expression names. */
  routeKey: string;
  functionId: string;
  qualifier?: string;
  integrationTimeoutMs: number;
  /** The `$connect` route's REQUEST authorizer, if any (AWS takes one on `$connect` alone). */
  authorizerId: string | undefined;
  /** AuthorizationType AWS_IAM on `$connect`: the upgrade request's SigV4 signature is checked (gateway/sigv4.ts). */
  iam: boolean;
  /**
   * Whether the function's result goes back to the client (RouteResponseSelectionExpression `$default`, which the
   * CDK's `returnResponse` sets: "Set up a route response for a WebSocket API").
   */
  routeResponse: boolean;
  /**
   * The route's request validation, when it has a ModelSelectionExpression ("Request validation for WebSocket APIs in
   * API Gateway": "Model validation occurs if you provide a model selection expression"): the path into the message's
   * JSON body that selects a model's key, and each key's JSON schema (draft 4), `$default` for a key no other names.
   */
  validation?: { selectionPath: string[]; models: Record<string, object> };
}

/** A WebSocket API's REQUEST authorizer: a REST API's REQUEST authorizer in shape, without a result cache. */
export type WebSocketAuthorizer = Extract<LambdaAuthorizerDefinition, { type: 'REQUEST' }>;

/**
 * The path into a message's JSON body that RouteSelectionExpression `$request.body.<path>` names (`$request.body.action`:
 * `['action']`, `$request.body.message.type`: `['message', 'type']`), the form "Working with routes for WebSocket
 * APIs" documents. Any other expression is refused.
 */
const selectionPathOf = (expression: string, id: string, property = 'RouteSelectionExpression'): string[] => {
  const path = /^\$request\.body\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)$/.exec(expression)?.[1];
  if (path === undefined)
    throw new UnsupportedTemplateError(
      `${id}: ${property} ${expression}, which the runner does not read (only $request.body.<path>, such as $request.body.action)`,
    );
  return path.split('.');
};

/**
 * Where a WebSocket authorizer's identity source is read: `route.request.header.X`, `route.request.querystring.X`,
 * `stageVariables.X`, `context.X` (the page above, "Identity sources").
 */
const identitySourceOf = (source: string, id: string): IdentitySource => {
  const [, prefix = '', name = ''] =
    /^(route\.request\.header|route\.request\.querystring|context|stageVariables)\.(.+)$/.exec(source) ?? [];
  const from = (
    {
      'route.request.header': 'header',
      'route.request.querystring': 'querystring',
      context: 'context',
      stageVariables: 'stageVariable',
    } as const
  )[prefix];
  if (!from) throw new UnsupportedTemplateError(`${id}: IdentitySource ${source}, which the runner does not read`);
  return { from, name };
};

/**
 * The quotas of a WebSocket API the gateway applies ("Amazon API Gateway quotas", WebSocket APIs): a connection idle
 * for 10 minutes, or open for 2 hours, is closed; a message over 128 KB closes its connection (1009). The 32 KB frame
 * quota is not applied (a message's frames are not counted one by one).
 */
export const webSocketQuotas = {
  idleTimeoutMs: 10 * 60 * 1000,
  maxDurationMs: 2 * 60 * 60 * 1000,
  maxMessageBytes: 128 * 1024,
  maxFrameBytes: 32 * 1024,
};

/** What the runner says at start of a WebSocket API it serves: the quotas applied and not, and @connections' reach. */
export const webSocketNotices = (stackName: string, apiId: string) => [
  `${stackName}/${apiId}: a WebSocket API: idle connections close after ${webSocketQuotas.idleTimeoutMs / 60_000} minutes and any after ${webSocketQuotas.maxDurationMs / 3_600_000} hours, a message over ${webSocketQuotas.maxMessageBytes / 1024} KB closes its connection (1009), as AWS's quotas say; the ${webSocketQuotas.maxFrameBytes / 1024} KB frame quota is not applied`,
  `${stackName}/${apiId}: its @connections API takes any signature (not checked); a function's AWS SDK reaches it at https://${apiId}.execute-api.<region>.amazonaws.com/<stage> (the event's domainName, CDK's callbackUrl): Node.js's through node:https, Python's through botocore, not another HTTP client (fetch)`,
];

/** API Gateway's limit on a WebSocket API's integration (and its default): 29 s ("Amazon API Gateway quotas"). */
const maxIntegrationMs = 29_000;

/** The REQUEST authorizer `id` of a WebSocket API; any other type, or a result cache, is refused. */
const authorizerOf = (id: string, resource: CfnResource, functionOfUri: FunctionOfUri): WebSocketAuthorizer => {
  const properties = props(resource);
  const at = (property: string) => ({ resource: id, property });
  const type = stringOf(properties.AuthorizerType, at('AuthorizerType'), undefined);
  if (type !== 'REQUEST')
    throw new UnsupportedTemplateError(
      `${id}: AuthorizerType ${String(type)} (a WebSocket API's authorizers are REQUEST ones)`,
    );
  // "Supported only for HTTP API Lambda authorizers" (AWS::ApiGatewayV2::Authorizer, AuthorizerResultTtlInSeconds).
  if (numberOf(properties.AuthorizerResultTtlInSeconds, at('AuthorizerResultTtlInSeconds'), 0) !== 0)
    throw new UnsupportedTemplateError(
      `${id}: AuthorizerResultTtlInSeconds ${String(properties.AuthorizerResultTtlInSeconds)}, which AWS supports for HTTP API authorizers alone`,
    );
  return {
    type: 'REQUEST',
    id,
    ...functionOfUri(properties.AuthorizerUri, `${id} (AuthorizerUri)`),
    identitySources: stringsOf(properties.IdentitySource, at('IdentitySource')).map((source) =>
      identitySourceOf(source, id),
    ),
    ttlSeconds: 0,
  };
};

/**
 * Whether the route `where` asks for a route response (RouteResponseSelectionExpression `$default`); what the runner
 * does not apply of a route (parameters, API keys, another selection expression) is refused.
 */
const routeResponseOf = (properties: Record<string, unknown>, id: string, where: string) => {
  const at = (property: string) => ({ resource: id, property });
  if (properties.RequestParameters !== undefined)
    throw new UnsupportedTemplateError(`${where}: RequestParameters, which the runner does not apply`);
  if (booleanOf(properties.ApiKeyRequired, at('ApiKeyRequired'), false))
    throw new UnsupportedTemplateError(`${where}: ApiKeyRequired true (the runner serves no WebSocket API keys)`);
  const responseSelection = stringOf(
    properties.RouteResponseSelectionExpression,
    at('RouteResponseSelectionExpression'),
    undefined,
  );
  if (responseSelection !== undefined && responseSelection !== '$default')
    throw new UnsupportedTemplateError(
      `${where}: RouteResponseSelectionExpression ${responseSelection} (only $default, a Lambda proxy integration's)`,
    );
  return responseSelection === '$default';
};

/**
 * The authorization of the route `where` (`routeKey`): a CUSTOM authorizer (one of `authorizers`) or AWS_IAM, on
 * `$connect` alone ("Controlling and managing access to a WebSocket API in API Gateway": only `$connect` takes one).
 */
const routeAuthorizationOf = (
  properties: Record<string, unknown>,
  { id, routeKey, where }: { id: string; routeKey: string; where: string },
  resources: Record<string, CfnResource>,
  authorizers: Map<string, WebSocketAuthorizer>,
) => {
  const at = (property: string) => ({ resource: id, property });
  const authorization = stringOf(properties.AuthorizationType, at('AuthorizationType'), 'NONE');
  refuseAuthorizerWithoutType(properties.AuthorizerId, authorization, where, 'CUSTOM');
  if (authorization !== 'NONE' && (!['CUSTOM', 'AWS_IAM'].includes(authorization) || routeKey !== '$connect'))
    throw new UnsupportedTemplateError(
      `${where}: AuthorizationType ${authorization} (the runner serves a CUSTOM authorizer or AWS_IAM on $connect alone)`,
    );
  const authorizerId =
    authorization === 'CUSTOM'
      ? referencedId(properties.AuthorizerId, resources, at('AuthorizerId'), ['AWS::ApiGatewayV2::Authorizer'])
      : undefined;
  if (authorizerId !== undefined && !authorizers.has(authorizerId))
    throw new UnsupportedTemplateError(`${where}: AuthorizerId ${authorizerId}, an authorizer of another API`);
  return { authorizerId, iam: authorization === 'AWS_IAM' };
};

/** The Lambda proxy integration a route's Target names; another type, or what the runner does not apply, is refused. */
const proxyIntegrationOf = (
  target: unknown,
  resources: Record<string, CfnResource>,
  id: string,
  app?: ValueContext,
) => {
  const integration = integrationOf(target, resources, { resource: id, property: 'Target' }, app);
  const type = stringOf(
    integration.properties.IntegrationType,
    { resource: integration.id, property: 'IntegrationType' },
    '',
  );
  if (type !== 'AWS_PROXY')
    throw new UnsupportedTemplateError(
      `${integration.id}: IntegrationType ${type} (the runner serves Lambda proxy integrations, AWS_PROXY)`,
    );
  for (const property of ['ContentHandlingStrategy', 'RequestTemplates', 'TemplateSelectionExpression'])
    if (integration.properties[property] !== undefined)
      throw new UnsupportedTemplateError(`${integration.id}: ${property}, which the runner does not apply`);
  return integration;
};

/**
 * The route's request validation: its ModelSelectionExpression (`$request.body.<path>`) and RequestModels (each key's
 * model, by its Name); none without the expression, as API Gateway validates only with one.
 */
const routeValidationOf = (
  properties: Record<string, unknown>,
  { id, where, apiId }: { id: string; where: string; apiId: string },
  resources: Record<string, CfnResource>,
): WebSocketRoute['validation'] => {
  const at = (property: string) => ({ resource: id, property });
  const expression = stringOf(properties.ModelSelectionExpression, at('ModelSelectionExpression'), undefined);
  if (expression === undefined) return undefined;
  const models = properties.RequestModels ?? {};
  if (typeof models !== 'object' || models === null || Array.isArray(models))
    throw new UnsupportedTemplateError(`${where}: RequestModels ${JSON.stringify(models)}, not a map of model names`);
  return {
    selectionPath: selectionPathOf(expression, id, 'ModelSelectionExpression'),
    models: Object.fromEntries(
      Object.entries(models).map(([key, name]) => [key, webSocketModelSchema(name, resources, apiId, where)]),
    ),
  };
};

/** The route `id` of the WebSocket API `apiId`, whose authorizers are `authorizers`. */
const routeOf = (
  [id, resource]: [string, CfnResource],
  { resources, apiId, app }: { resources: Record<string, CfnResource>; apiId: string; app?: ValueContext },
  authorizers: Map<string, WebSocketAuthorizer>,
  functionOfUri: FunctionOfUri,
): WebSocketRoute => {
  const properties = props(resource);
  const routeKey = stringOf(properties.RouteKey, { resource: id, property: 'RouteKey' }, '');
  const where = `${id} (${routeKey})`;
  const routeResponse = routeResponseOf(properties, id, where);
  const authorization = routeAuthorizationOf(properties, { id, routeKey, where }, resources, authorizers);
  const integration = proxyIntegrationOf(properties.Target, resources, id, app);
  return {
    routeKey,
    ...functionOfUri(integration.properties.IntegrationUri, `${integration.id} (IntegrationUri) of ${where}`),
    integrationTimeoutMs: numberOf(
      integration.properties.TimeoutInMillis,
      { resource: integration.id, property: 'TimeoutInMillis' },
      maxIntegrationMs,
    ),
    ...authorization,
    routeResponse,
    validation: routeValidationOf(properties, { id, where, apiId }, resources),
  };
};

/** The API's stages: a WebSocket API without one is refused (clients connect to a stage by its name). */
const stagesOf = (resources: Record<string, CfnResource>, apiId: string) => {
  const stageResources = resourcesOfApi(resources, apiId, 'AWS::ApiGatewayV2::Stage');
  if (stageResources.length === 0)
    throw new UnsupportedTemplateError(
      `${apiId}: a WebSocket API with no stage (AWS::ApiGatewayV2::Stage): clients connect to a stage by its name`,
    );
  return readStages(stageResources, resources, apiId, 'AWS::ApiGatewayV2::Stage');
};

/** The WebSocket API `apiId` of `resources`; `functionOfUri` finds the function an integration's URI names. */
export const readWebSocketApi = (
  resources: Record<string, CfnResource>,
  apiId: string,
  functionOfUri: FunctionOfUri,
  app?: ValueContext,
): {
  routeSelectionPath: string[];
  stages: Stage[];
  routes: WebSocketRoute[];
  authorizers: Map<string, WebSocketAuthorizer>;
} => {
  const ofApi = (type: string) => resourcesOfApi(resources, apiId, type);
  const api = props(resources[apiId] ?? { Type: '' });
  const apiAt = (property: string) => ({ resource: apiId, property });
  const expression = stringOf(api.RouteSelectionExpression, apiAt('RouteSelectionExpression'), undefined);
  if (expression === undefined)
    throw new UnsupportedTemplateError(`${apiId}: a WebSocket API without RouteSelectionExpression`);
  if (booleanOf(api.DisableExecuteApiEndpoint, apiAt('DisableExecuteApiEndpoint'), false))
    throw new UnsupportedTemplateError(
      `${apiId}: DisableExecuteApiEndpoint true (clients reach it through a custom domain, which the runner does not serve)`,
    );
  const stages = stagesOf(resources, apiId);
  const authorizers = new Map(
    ofApi('AWS::ApiGatewayV2::Authorizer').map(([id, resource]) => [id, authorizerOf(id, resource, functionOfUri)]),
  );
  const routes = ofApi('AWS::ApiGatewayV2::Route').map((route) =>
    routeOf(route, { resources, apiId, ...(app && { app }) }, authorizers, functionOfUri),
  );
  return { routeSelectionPath: selectionPathOf(expression, apiId), stages, routes, authorizers };
};
