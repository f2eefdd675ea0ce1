// An HTTP API of the template (AWS::ApiGatewayV2::Api, ProtocolType HTTP) as the runner serves it: its routes
// ("Working with routes for HTTP APIs": `METHOD /path`, `ANY`, `{proxy+}`, `$default`), their Lambda proxy
// integrations (payload format 2.0 or 1.0), its stages (`$default`, or named ones and their path prefixes) and stage
// variables, its JWT and Lambda authorizers, and its CORS configuration. What the runner does not serve of it is
// refused, each named.
import {
  type CfnResource,
  type IdentitySource,
  ofType,
  props,
  refuseRoutesOutsideResources,
  type Stage,
  shown,
  UnsupportedTemplateError,
} from './cfn.ts';
import { type HttpServiceIntegration, readHttpServiceIntegration } from './http-service-integrations.ts';
import { evaluatedProperty, resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { readStages } from './stages.ts';
import {
  booleanOf,
  names,
  numberOf,
  referencedId,
  refuseAuthorizerWithoutType,
  stringOf,
  stringsOf,
  type Where,
} from './values.ts';

interface HttpRouteBase {
  routeKey: string;
  /** The route's path (`/items/{id}`, `/{proxy+}`), `$default` for the catch-all route. */
  resourcePath: string;
  /** `ANY` or an HTTP method. */
  method: string;
  /** The route's JWT authorizer, if any. */
  authorizerId: string | undefined;
  /** AuthorizationType AWS_IAM: the request must be signed with SigV4 (gateway/sigv4.ts). */
  iam: boolean;
  authorizationScopes: string[];
  integrationTimeoutMs: number;
}

/** A route with a Lambda proxy integration. */
export interface HttpLambdaRoute extends HttpRouteBase {
  functionId: string;
  qualifier?: string;
  /** The integration's PayloadFormatVersion: the event's and the response's format. */
  payloadVersion: '1.0' | '2.0';
  service?: undefined;
  httpProxy?: undefined;
}

/** A route with a first-class AWS service integration (http-service-integrations.ts). */
export interface HttpServiceRoute extends HttpRouteBase {
  service: HttpServiceIntegration;
  httpProxy?: undefined;
}

/**
 * A route with an HTTP proxy integration ("Create HTTP proxy integrations for HTTP APIs"): the request passed to the
 * URL (its `{name}` filled from the route's path parameters), the answer passed back.
 */
export interface HttpProxyRoute extends HttpRouteBase {
  httpProxy: { url: string; method: string };
  service?: undefined;
}

export type HttpRoute = HttpLambdaRoute | HttpServiceRoute | HttpProxyRoute;

export interface JwtAuthorizerDefinition {
  type: 'JWT';
  id: string;
  /** The header the token is in ($request.header.NAME). */
  headerName: string;
  /** JwtConfiguration, as the template has them (intrinsics unresolved). */
  issuer: unknown;
  audience: unknown[];
}

/** The API's CorsConfiguration: API Gateway answers preflights and adds the CORS headers itself. */
export interface HttpCors {
  allowOrigins: string[];
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAge: number | undefined;
  allowCredentials: boolean;
}

/** A Lambda authorizer of an HTTP API. */
export interface HttpLambdaAuthorizerDefinition {
  type: 'REQUEST';
  id: string;
  /** AuthorizerPayloadFormatVersion: 2.0, or 1.0 (a REST API's REQUEST authorizer event; an IAM policy answers). */
  payloadVersion: '1.0' | '2.0';
  functionId: string;
  qualifier?: string;
  identitySources: IdentitySource[];
  /** EnableSimpleResponses: `{isAuthorized, context}` in place of an IAM policy. */
  simpleResponses: boolean;
  ttlSeconds: number;
}

/** An HTTP API's authorizer, of either kind. */
export type HttpAuthorizer = JwtAuthorizerDefinition | HttpLambdaAuthorizerDefinition;

/**
 * The wildcards "Configure CORS for HTTP APIs" documents in AllowOrigins: `*`, and `https://*` and `http://*` (any
 * origin that begins with the scheme). What API Gateway does with another (`https://*.example.com`) we have not seen
 * documented: the runner refuses it rather than guess.
 */
const httpApiWildcards = {
  service: 'API Gateway',
  origins: ['*', 'https://*', 'http://*'],
  page: '"Configure CORS for HTTP APIs"',
};

/**
 * A CORS configuration of the template (an HTTP API's CorsConfiguration, a function URL's Cors: the same properties),
 * `property` naming it; `wildcards`: the AllowOrigins wildcards the service documents, and the page that does.
 */
export const corsOf = (
  value: unknown,
  apiId: string,
  property = 'CorsConfiguration',
  wildcards = httpApiWildcards,
): HttpCors | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UnsupportedTemplateError(`${apiId}: ${property} ${shown(value)}, not an object`);
  const cors = value as Record<string, unknown>;
  const at = (name: string) => ({ resource: apiId, property: `${property}.${name}` });
  const origins = stringsOf(cors.AllowOrigins, at('AllowOrigins'));
  const undocumented = origins.find((origin) => origin.includes('*') && !wildcards.origins.includes(origin));
  if (undocumented !== undefined)
    throw new UnsupportedTemplateError(
      `${apiId}: ${property}.AllowOrigins ${undocumented}, a wildcard ${wildcards.service} does not document ` +
        `(only ${wildcards.origins.join(', ')}, in ${wildcards.page}); list the origins`,
    );
  return {
    allowOrigins: origins,
    allowMethods: stringsOf(cors.AllowMethods, at('AllowMethods')),
    allowHeaders: stringsOf(cors.AllowHeaders, at('AllowHeaders')),
    exposeHeaders: stringsOf(cors.ExposeHeaders, at('ExposeHeaders')),
    maxAge: cors.MaxAge === undefined ? undefined : numberOf(cors.MaxAge, at('MaxAge'), 0),
    allowCredentials: booleanOf(cors.AllowCredentials, at('AllowCredentials'), false),
  };
};

/**
 * The integration a route's Target names: `integrations/<id>` ("AWS::ApiGatewayV2::Route", Target: "The target for
 * the route"; the integration's id), in any form the evaluator resolves (Fn::Join with any delimiter, Fn::Sub, ...),
 * the id that of an Integration of the template (its Ref or its GetAtt IntegrationId: locally its logical id). A
 * literal id names an integration outside the template: refused, as is what the evaluator cannot resolve.
 */
export const integrationOf = (
  target: unknown,
  resources: Record<string, CfnResource>,
  where: Where,
  app: ValueContext = { stackName: '', resources, tables: [], exports: new Map() },
): { id: string; properties: Record<string, unknown> } => {
  const refuse = (why: string) =>
    new UnsupportedTemplateError(`${where.resource}: ${where.property} ${shown(target)}, ${why}`);
  if (typeof target !== 'object' || target === null)
    throw refuse('not integrations/ joined with an Integration of the template (a literal id names none)');
  let text: string;
  try {
    text = resolveValue(target, app);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw refuse(`which the runner cannot resolve: ${error.message}`);
  }
  const id = /^integrations\/(.+)$/s.exec(text)?.[1];
  const resource = id === undefined ? undefined : resources[id];
  if (id === undefined || resource?.Type !== 'AWS::ApiGatewayV2::Integration')
    throw refuse(`${text}, not integrations/ and the id of an Integration of the template`);
  return { id, properties: props(resource) };
};

/** Finds the function an integration's or authorizer's URI names (uri-target.ts), `where` naming the resource and property. */
export type FunctionOfUri = (uri: unknown, where: string) => { functionId: string; qualifier?: string };

/** The resources of `type` that belong to the API `apiId` (their ApiId names it): its stages, authorizers, routes. */
export const resourcesOfApi = (resources: Record<string, CfnResource>, apiId: string, type: string) =>
  ofType(resources, type).filter(([id, resource]) =>
    names(props(resource).ApiId, apiId, resources, { resource: id, property: 'ApiId' }, ['AWS::ApiGatewayV2::Api']),
  );

/** Where a Lambda authorizer's identity source is read (`$request.header.X`, `$request.querystring.X`, ...). */
const identitySourceOf = (source: string, id: string): IdentitySource => {
  const [, prefix = '', name = ''] =
    /^\$(request\.header|request\.querystring|context|stageVariables)\.(.+)$/.exec(source) ?? [];
  const from = (
    {
      'request.header': 'header',
      'request.querystring': 'querystring',
      context: 'context',
      stageVariables: 'stageVariable',
    } as const
  )[prefix];
  if (!from) throw new UnsupportedTemplateError(`${id}: identity source ${source}`);
  return { from, name };
};

/** The Lambda authorizer `id` (AuthorizerType REQUEST), of `properties`. */
const lambdaAuthorizerOf = (
  id: string,
  properties: Record<string, unknown>,
  identitySource: string[],
  functionOfUri: FunctionOfUri,
): HttpLambdaAuthorizerDefinition => {
  const at = (property: string) => ({ resource: id, property });
  const version = stringOf(properties.AuthorizerPayloadFormatVersion, at('AuthorizerPayloadFormatVersion'), '');
  if (version !== '2.0' && version !== '1.0')
    throw new UnsupportedTemplateError(`${id}: a Lambda authorizer's payload format ${version} (1.0 or 2.0)`);
  const simpleResponses = booleanOf(properties.EnableSimpleResponses, at('EnableSimpleResponses'), false);
  // "If you choose the 1.0 format version, Lambda authorizers must return an IAM policy" (the same page).
  if (version === '1.0' && simpleResponses)
    throw new UnsupportedTemplateError(`${id}: simple responses with payload format 1.0, which take 2.0`);
  return {
    type: 'REQUEST',
    id,
    payloadVersion: version,
    ...functionOfUri(properties.AuthorizerUri, `${id} (AuthorizerUri)`),
    identitySources: identitySource.map((source) => identitySourceOf(source, id)),
    simpleResponses,
    ttlSeconds: numberOf(properties.AuthorizerResultTtlInSeconds, at('AuthorizerResultTtlInSeconds'), 0),
  };
};

/** The JWT authorizer `id`, of `properties`: one header its identity source, an Issuer and a list of Audience. */
const jwtAuthorizerOf = (
  id: string,
  properties: Record<string, unknown>,
  identitySource: string[],
): JwtAuthorizerDefinition => {
  const [source, ...others] = identitySource;
  const headerName = /^\$request\.header\.(.+)$/.exec(String(source))?.[1];
  if (!headerName || others.length > 0)
    throw new UnsupportedTemplateError(`${id}: identity source ${shown(properties.IdentitySource)}`);
  const configuration = properties.JwtConfiguration;
  if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration))
    throw new UnsupportedTemplateError(`${id}: JwtConfiguration ${shown(configuration)}`);
  const { Issuer: issuer, Audience: audience = [] } = configuration as Record<string, unknown>;
  if (issuer === undefined || !Array.isArray(audience))
    throw new UnsupportedTemplateError(
      `${id}: JwtConfiguration ${shown(configuration)} (an Issuer and a list of Audience)`,
    );
  return { type: 'JWT', id, headerName, issuer, audience };
};

/** The authorizer `id` of an HTTP API: a Lambda one (REQUEST) or a JWT one; any other type is refused. */
const authorizerOf = (id: string, resource: CfnResource, functionOfUri: FunctionOfUri): HttpAuthorizer => {
  const properties = props(resource);
  const at = (property: string) => ({ resource: id, property });
  const type = stringOf(properties.AuthorizerType, at('AuthorizerType'), undefined);
  const identitySource = stringsOf(properties.IdentitySource, at('IdentitySource'));
  if (type === 'REQUEST') return lambdaAuthorizerOf(id, properties, identitySource, functionOfUri);
  if (type !== 'JWT')
    throw new UnsupportedTemplateError(`${id}: an HTTP API authorizer of type ${String(type)} (only JWT and REQUEST)`);
  return jwtAuthorizerOf(id, properties, identitySource);
};

/** Why the runner does not serve a route as AWS does, if it does not: its integration's type, format, authorization. */
const routeProblem = (type: string, version: string, authorization: string) =>
  type !== 'AWS_PROXY' && type !== 'HTTP_PROXY'
    ? `an integration of type ${type} (the runner serves AWS_PROXY and HTTP_PROXY integrations)`
    : version !== '2.0' && version !== '1.0'
      ? `payload format version ${version}`
      : !['NONE', 'AWS_IAM', 'JWT', 'CUSTOM'].includes(authorization)
        ? `authorization type ${authorization} (only NONE, AWS_IAM, JWT and CUSTOM)`
        : undefined;

/** An HTTP_PROXY integration's URL and method, or why the runner does not serve it (a VPC link, parameter mapping). */
const httpProxyOf = (
  { id, properties }: { id: string; properties: Record<string, unknown> },
  where: string,
  app: ValueContext,
): { url: string; method: string } | string => {
  if (properties.ConnectionType === 'VPC_LINK') return `${where}: an HTTP_PROXY integration through a VPC link`;
  if (properties.RequestParameters !== undefined || properties.ResponseParameters !== undefined)
    return `${where}: an HTTP_PROXY integration's parameter mapping`;
  const url = evaluatedProperty(properties.IntegrationUri, app, `${app.stackName}/${id}`, 'IntegrationUri');
  if (typeof url !== 'string' || !URL.canParse(url)) return `${where}: IntegrationUri ${JSON.stringify(url)}`;
  return { url, method: String(properties.IntegrationMethod ?? 'ANY') };
};

/**
 * The route `id` of an HTTP API whose authorizers are `authorizers`; a route the runner does not serve as AWS does
 * is added to `refused` instead, to be refused with the others.
 */
const routeOf = (
  [id, resource]: [string, CfnResource],
  resources: Record<string, CfnResource>,
  authorizers: Map<string, HttpAuthorizer>,
  functionOfUri: FunctionOfUri,
  refused: string[],
  app?: ValueContext,
): HttpRoute[] => {
  const properties = props(resource);
  const at = (property: string) => ({ resource: id, property });
  const routeKey = stringOf(properties.RouteKey, at('RouteKey'), '');
  const where = `${id} (${routeKey})`;
  const integration = integrationOf(properties.Target, resources, at('Target'), app);
  const integrationAt = (property: string) => ({ resource: integration.id, property });
  const type = stringOf(integration.properties.IntegrationType, integrationAt('IntegrationType'), '');
  const version = stringOf(integration.properties.PayloadFormatVersion, integrationAt('PayloadFormatVersion'), '1.0');
  const authorization = stringOf(properties.AuthorizationType, at('AuthorizationType'), 'NONE');
  const problem = routeProblem(type, version, authorization);
  if (problem !== undefined) {
    refused.push(`${where}: ${problem}`);
    return [];
  }
  refuseAuthorizerWithoutType(properties.AuthorizerId, authorization, where, 'CUSTOM or JWT');
  let authorizerId: string | undefined;
  if (authorization !== 'NONE' && authorization !== 'AWS_IAM') {
    authorizerId = referencedId(properties.AuthorizerId, resources, at('AuthorizerId'), [
      'AWS::ApiGatewayV2::Authorizer',
    ]);
    if (!authorizers.has(authorizerId))
      throw new UnsupportedTemplateError(`${where}: AuthorizerId ${authorizerId}, an authorizer of another API`);
  }
  const [method = '', path = ''] = routeKey === '$default' ? ['ANY', '$default'] : routeKey.split(' ');
  const base = {
    routeKey,
    resourcePath: path,
    method,
    authorizerId,
    iam: authorization === 'AWS_IAM',
    authorizationScopes: stringsOf(properties.AuthorizationScopes, at('AuthorizationScopes')),
    integrationTimeoutMs: numberOf(integration.properties.TimeoutInMillis, integrationAt('TimeoutInMillis'), 30_000),
  };
  if (type === 'HTTP_PROXY') {
    const proxied = httpProxyOf(
      integration,
      where,
      app ?? { stackName: '', resources, tables: [], exports: new Map() },
    );
    if (typeof proxied === 'string') {
      refused.push(proxied);
      return [];
    }
    return [{ ...base, httpProxy: proxied }];
  }
  if (integration.properties.IntegrationSubtype !== undefined) {
    const context = app ?? { stackName: '', resources, tables: [], exports: new Map() };
    try {
      return [{ ...base, service: readHttpServiceIntegration(integration.properties, integration.id, where, context) }];
    } catch (error) {
      if (!(error instanceof UnsupportedTemplateError)) throw error;
      refused.push(error.message);
      return [];
    }
  }
  return [
    {
      ...base,
      ...functionOfUri(integration.properties.IntegrationUri, `${integration.id} (IntegrationUri) of ${where}`),
      payloadVersion: version === '1.0' ? '1.0' : '2.0',
    },
  ];
};

/**
 * The HTTP API `apiId` of `resources`; `functionOfUri` finds the function an integration's URI names; `app`: the stack
 * its values are evaluated in.
 */
export const readHttpApi = (
  resources: Record<string, CfnResource>,
  apiId: string,
  functionOfUri: FunctionOfUri,
  app?: ValueContext,
): {
  cors: HttpCors | undefined;
  /** Its stages, `$default` first if it has one; every one serves the template's routes. */
  stages: Stage[];
  routes: HttpRoute[];
  authorizers: Map<string, HttpAuthorizer>;
} => {
  const ofApi = (type: string) => resourcesOfApi(resources, apiId, type);
  const api = props(resources[apiId] ?? { Type: '' });
  refuseRoutesOutsideResources(resources[apiId] ?? { Type: '' }, apiId);
  const protocol = stringOf(api.ProtocolType, { resource: apiId, property: 'ProtocolType' }, undefined);
  if (protocol !== 'HTTP')
    throw new UnsupportedTemplateError(`${apiId}: a ${String(protocol)} API, which the runner does not serve`);
  // `$default` first: the stage of a path no other stage's name begins.
  const stages = readStages(ofApi('AWS::ApiGatewayV2::Stage'), resources, apiId, 'AWS::ApiGatewayV2::Stage').sort(
    (a, b) => Number(b.name === '$default') - Number(a.name === '$default'),
  );
  const authorizers = new Map(
    ofApi('AWS::ApiGatewayV2::Authorizer').map(([id, resource]) => [id, authorizerOf(id, resource, functionOfUri)]),
  );
  const refused: string[] = [];
  const routes = ofApi('AWS::ApiGatewayV2::Route').flatMap((route) =>
    routeOf(route, resources, authorizers, functionOfUri, refused, app),
  );
  if (refused.length > 0)
    throw new UnsupportedTemplateError(
      `${apiId}: the runner serves these HTTP API routes as AWS does only in part; not these:\n${refused.map((line) => `  ${line}`).join('\n')}`,
    );
  return {
    cors: corsOf(api.CorsConfiguration, apiId),
    stages,
    routes,
    authorizers,
  };
};
