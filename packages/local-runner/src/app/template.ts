// Reads a synthesized CloudFormation template into what the local runner serves: the REST API's routes, TOKEN
// authorizers and gateway responses, the Lambda functions (their bundled assets) and the DynamoDB tables.
// Anything the runner cannot reproduce faithfully stops it here, with a message naming the resource.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnResource, getAttOf, ofType, props, refOf, UnsupportedTemplateError } from './cfn.ts';
import { type LayerDirs, type LocalFunction, readFunctions } from './functions.ts';
import { type LocalHttpApi, readHttpApi } from './http-api.ts';
import { type RequestValidation, readRequestValidation } from './request-validation.ts';
import { type LocalUserPool, localPoolId, readUserPools } from './user-pools.ts';

export type { LocalFunction } from './functions.ts';

interface CfnTemplate {
  Resources: Record<string, CfnResource>;
}

/** Where a REQUEST authorizer's identity source is read ("Identity sources" of a Lambda authorizer). */
export interface IdentitySource {
  from: 'header' | 'querystring' | 'stageVariable' | 'context';
  name: string;
}

interface AuthorizerBase {
  id: string;
  functionId: string;
  /** The alias API Gateway invokes (the URI's), if any. */
  qualifier?: string;
  ttlSeconds: number;
}

/** A TOKEN authorizer: the token in one header, checked against a pattern before any invocation. */
interface LocalTokenAuthorizerDefinition extends AuthorizerBase {
  type: 'TOKEN';
  /** The request header carrying the token. */
  headerName: string;
  /** Must match the whole header value; API Gateway answers 401 itself otherwise. */
  validation: RegExp | undefined;
}

/** A REQUEST authorizer: the request's parts, its identity sources required and the cache's key. */
interface LocalRequestAuthorizerDefinition extends AuthorizerBase {
  type: 'REQUEST';
  identitySources: IdentitySource[];
}

/** A Cognito user pool authorizer: a token of one of its pools in one header (the development issuer signs them). */
export interface LocalUserPoolAuthorizerDefinition {
  id: string;
  type: 'COGNITO_USER_POOLS';
  ttlSeconds: number;
  headerName: string;
  validation: RegExp | undefined;
  /** The ids of the pools whose tokens it takes. */
  poolIds: string[];
}

/** An authorizer that invokes a function. */
export type LocalLambdaAuthorizerDefinition = LocalTokenAuthorizerDefinition | LocalRequestAuthorizerDefinition;

type LocalAuthorizer = LocalLambdaAuthorizerDefinition | LocalUserPoolAuthorizerDefinition;

interface RouteBase {
  /** The resource path as in the template, e.g. `/items` or `/items/{id}`. */
  resourcePath: string;
  /** `ANY` or an HTTP method. */
  method: string;
  authorizerId: string | undefined;
  /** The method's AuthorizationScopes (a user pool authorizer's). */
  authorizationScopes: string[];
  /** What API Gateway checks of a request before its integration, when the method has a request validator. */
  validation: RequestValidation | undefined;
}

/** A Lambda proxy integration (`AWS_PROXY`): the function answers. */
export interface ProxyRoute extends RouteBase {
  integration: 'proxy';
  functionId: string;
  /** The alias API Gateway invokes (the URI's), if any. */
  qualifier?: string;
  integrationTimeoutMs: number;
}

/** An integration's (or integration response's) ContentHandling, which gateway/content-handling.ts applies. */
export type ContentHandling = 'CONVERT_TO_TEXT' | 'CONVERT_TO_BINARY' | undefined;
const contentHandlings: readonly ContentHandling[] = ['CONVERT_TO_TEXT', 'CONVERT_TO_BINARY'];

/** A mock integration (`MOCK`, such as a CORS preflight): API Gateway answers itself, always the same. */
export interface MockRoute extends RouteBase {
  integration: 'mock';
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The integration's ContentHandling, and the chosen integration response's (gateway/content-handling.ts). */
  requestContentHandling: ContentHandling;
  responseContentHandling: ContentHandling;
}

export type LocalRoute = ProxyRoute | MockRoute;

export interface LocalGatewayResponse {
  statusCode: number | undefined;
  headers: Record<string, string>;
  /** The application/json template, if any. */
  template: string | undefined;
}

export interface LocalTable {
  id: string;
  tableName: string;
  properties: Record<string, unknown>;
}

export interface LocalApp {
  stackName: string;
  apiId: string;
  /** The stack's other APIs (REST and HTTP), not served by this app (each has its own). */
  otherApiIds: string[];
  /** Set when the API is an HTTP API (its routes, stage and JWT authorizers); the REST fields are then empty. */
  httpApi: LocalHttpApi | undefined;
  stageName: string;
  /** The stage's variables (`stageVariables` of the events), with the values the template gives them. */
  stageVariables: Record<string, string>;
  /** The stage's deployment: its logical id, which the CDK changes with each change to the API. */
  deployment: string;
  /** Request media types whose bodies reach functions base64-encoded (`*` wildcards). */
  binaryMediaTypes: string[];
  routes: LocalRoute[];
  authorizers: Map<string, LocalAuthorizer>;
  gatewayResponses: Map<string, LocalGatewayResponse>;
  /** The functions a route or an authorizer reaches: those served. */
  functions: Map<string, LocalFunction>;
  /** The template's Cognito user pools, whose tokens the development issuer signs. */
  userPools: LocalUserPool[];
  /** The template's other functions (custom resources, log retention, queue consumers): not served, not read. */
  unreachedFunctions: string[];
  tables: LocalTable[];
  resources: Record<string, CfnResource>;
}

/**
 * The Lambda function an integration or authorizer URI points at (its logical id): by its Arn, or through an alias,
 * whose name is then the qualifier of every invocation (`invokedFunctionArn` ends with it, as on AWS).
 */
const functionOfUri = (
  uri: unknown,
  where: string,
  resources: Record<string, CfnResource>,
): { functionId: string; qualifier?: string } => {
  // A REST API's URI joins the function's ARN into an API Gateway path; an HTTP API's IntegrationUri is the ARN.
  const parts =
    typeof uri === 'object' && uri !== null && 'Fn::Join' in uri ? (uri['Fn::Join'] as [string, unknown[]])[1] : [uri];
  const targets = parts.flatMap((part): { functionId: string; qualifier?: string }[] => {
    const att = getAttOf(part);
    if (att?.[1] === 'Arn') return [{ functionId: att[0] }];
    // An alias (its Ref is its ARN) serves, locally, the current code of the function it names.
    const ref = refOf(part);
    const alias = ref === undefined ? undefined : resources[ref];
    const aliased = alias?.Type === 'AWS::Lambda::Alias' ? refOf(props(alias).FunctionName) : undefined;
    const name = alias === undefined ? undefined : props(alias).Name;
    return aliased === undefined ? [] : [{ functionId: aliased, ...(typeof name === 'string' && { qualifier: name }) }];
  });
  const [target] = targets;
  if (targets.length !== 1 || !target?.functionId)
    throw new UnsupportedTemplateError(`${where}: its URI does not name one Lambda function of the template`);
  return target;
};

/**
 * A REQUEST authorizer's identity sources (comma-separated: `method.request.header.NAME`,
 * `method.request.querystring.NAME`, `stageVariables.NAME`, `context.NAME`); anything else is refused.
 */
const identitySourcesOf = (value: unknown, id: string): IdentitySource[] =>
  (typeof value === 'string' && value.trim() !== '' ? value.split(',') : []).map((text) => {
    const [, prefix = '', name = ''] =
      /^(method\.request\.header|method\.request\.querystring|stageVariables|context)\.(.+)$/.exec(text.trim()) ?? [];
    const from = (
      {
        'method.request.header': 'header',
        'method.request.querystring': 'querystring',
        stageVariables: 'stageVariable',
        context: 'context',
      } as const
    )[prefix];
    if (!from) throw new UnsupportedTemplateError(`${id}: identity source ${text.trim()}`);
    return { from, name };
  });

const readAuthorizers = (resources: Record<string, CfnResource>, apiId: string) => {
  const authorizers = new Map<string, LocalAuthorizer>();
  for (const [id, resource] of ofType(resources, 'AWS::ApiGateway::Authorizer')) {
    const properties = props(resource);
    if (refOf(properties.RestApiId) !== apiId) continue;
    const ttlSeconds = Number(properties.AuthorizerResultTtlInSeconds ?? 300);
    const expression = properties.IdentityValidationExpression;
    // API Gateway matches the whole value, as Java's matches() does.
    const validation = typeof expression === 'string' ? new RegExp(`^(?:${expression})$`) : undefined;
    if (properties.Type === 'COGNITO_USER_POOLS') {
      const source = /^method\.request\.header\.(.+)$/.exec(String(properties.IdentitySource ?? ''));
      if (!source?.[1])
        throw new UnsupportedTemplateError(`${id}: identity source ${String(properties.IdentitySource)}`);
      const poolIds = ((properties.ProviderARNs ?? []) as unknown[]).map((arn) => {
        const [poolLogicalId, attribute] = getAttOf(arn) ?? [];
        const poolId =
          attribute === 'Arn' && poolLogicalId !== undefined
            ? localPoolId(poolLogicalId)
            : typeof arn === 'string'
              ? /:userpool\/([^/]+)$/.exec(arn)?.[1]
              : undefined;
        if (poolId === undefined) throw new UnsupportedTemplateError(`${id}: user pool ${JSON.stringify(arn)}`);
        return poolId;
      });
      authorizers.set(id, { id, type: 'COGNITO_USER_POOLS', ttlSeconds, headerName: source[1], validation, poolIds });
      continue;
    }
    const base = { id, ...functionOfUri(properties.AuthorizerUri, id, resources), ttlSeconds };
    if (properties.Type === 'REQUEST') {
      authorizers.set(id, {
        ...base,
        type: 'REQUEST',
        identitySources: identitySourcesOf(properties.IdentitySource, id),
      });
      continue;
    }
    if (properties.Type !== 'TOKEN')
      throw new UnsupportedTemplateError(
        `${id}: authorizer type ${String(properties.Type)} (only TOKEN, REQUEST and COGNITO_USER_POOLS)`,
      );
    const source = /^method\.request\.header\.(.+)$/.exec(String(properties.IdentitySource ?? ''));
    if (!source?.[1]) throw new UnsupportedTemplateError(`${id}: identity source ${String(properties.IdentitySource)}`);
    authorizers.set(id, { ...base, type: 'TOKEN', headerName: source[1], validation });
  }
  return authorizers;
};

const readRoutes = (resources: Record<string, CfnResource>, apiId: string): LocalRoute[] => {
  const pathOf = (resourceId: unknown): string => {
    if (getAttOf(resourceId)?.[1] === 'RootResourceId') return '';
    const id = refOf(resourceId);
    const resource = id === undefined ? undefined : resources[id];
    if (!id || resource?.Type !== 'AWS::ApiGateway::Resource')
      throw new UnsupportedTemplateError(`resource ${JSON.stringify(resourceId)}`);
    return `${pathOf(props(resource).ParentId)}/${String(props(resource).PathPart)}`;
  };
  const refused: string[] = [];
  const routes = ofType(resources, 'AWS::ApiGateway::Method').flatMap(([id, resource]): LocalRoute[] => {
    const properties = props(resource);
    if (refOf(properties.RestApiId) !== apiId) return [];
    const base = {
      resourcePath: pathOf(properties.ResourceId) || '/',
      method: String(properties.HttpMethod),
      authorizerId: undefined as string | undefined,
      authorizationScopes: [] as string[],
    };
    const where = `${id} (${base.method} ${base.resourcePath})`;
    const validation = readRequestValidation(properties, resources, apiId, where);
    const integration = (properties.Integration ?? {}) as Record<string, unknown>;
    const unsupported = unsupportedIntegration(integration);
    if (unsupported !== undefined) {
      refused.push(`${where}: ${unsupported}`);
      return [];
    }
    const authorization = String(properties.AuthorizationType ?? 'NONE');
    if (!['NONE', 'CUSTOM', 'COGNITO_USER_POOLS'].includes(authorization)) {
      throw new UnsupportedTemplateError(
        `${where}: authorization type ${authorization} (only NONE, CUSTOM and COGNITO_USER_POOLS)`,
      );
    }
    if (properties.ApiKeyRequired === true) throw new UnsupportedTemplateError(`${where}: API keys`);
    if (authorization !== 'NONE') base.authorizerId = refOf(properties.AuthorizerId);
    // A user pool authorizer takes an access token with one of these, or, without them, an ID token.
    base.authorizationScopes = Array.isArray(properties.AuthorizationScopes)
      ? properties.AuthorizationScopes.map(String)
      : [];
    if (integration.Type === 'MOCK')
      return [{ ...base, validation, integration: 'mock', ...readMockIntegration(integration, id) }];
    // A Lambda proxy integration's payloads follow the binary media types alone (proxy-event.ts, responses.ts).
    if (integration.ContentHandling !== undefined) {
      throw new UnsupportedTemplateError(
        `${where}: ContentHandling ${String(integration.ContentHandling)} on a Lambda proxy integration (only on MOCK)`,
      );
    }
    return [
      {
        ...base,
        validation,
        integration: 'proxy',
        ...functionOfUri(integration.Uri, id, resources),
        integrationTimeoutMs: Number(integration.TimeoutInMillis ?? 29_000),
      },
    ];
  });
  // Every method the runner cannot serve, named at once: a user fixes them together, or learns the runner is not for
  // this API.
  if (refused.length > 0)
    throw new UnsupportedTemplateError(
      `the runner serves Lambda proxy (AWS_PROXY) and MOCK integrations; not these methods:\n${refused.map((line) => `  ${line}`).join('\n')}`,
    );
  return routes;
};

/** An integration's Uri as text, its Fn::Join parts joined, any other intrinsic (a Ref, a GetAtt) as `*`. */
const uriText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | null)?.['Fn::Join'];
  return Array.isArray(join) && Array.isArray(join[1]) ? join[1].map(uriText).join(join[0]) : '*';
};

/**
 * Why the runner does not serve an integration, named as the API Gateway console names it (the AWS service and action
 * of a non-proxy AWS integration, the address of an HTTP one); undefined for a Lambda proxy or a mock.
 */
const unsupportedIntegration = (integration: Record<string, unknown>) => {
  const type = String(integration.Type);
  // "Stream the integration response for your proxy integrations in API Gateway": the function's response
  // streamed to the client as it writes it, which the runner's runtime clients do not do.
  if (integration.ResponseTransferMode === 'STREAM')
    return `a response-streaming integration (${type}, ResponseTransferMode STREAM), which the runner does not stream`;
  if (type === 'AWS_PROXY' || type === 'MOCK') return undefined;
  const uri = uriText(integration.Uri ?? '');
  if (type === 'AWS') {
    // arn:aws:apigateway:{region}:{service}:{path|action}/...
    const [, service = 'an AWS service', target = ''] = /:apigateway:[^:]*:([^:/]+):(.*)$/.exec(uri) ?? [];
    return service === 'lambda'
      ? 'a non-proxy Lambda integration (AWS, with mapping templates)'
      : `a non-proxy integration (AWS) with ${service} (${target})`;
  }
  if (type === 'HTTP' || type === 'HTTP_PROXY') return `an HTTP integration (${type}) to ${uri}`;
  return `an integration of type ${type}`;
};

/**
 * The headers of a response's parameters (`<prefix><name>`: `'<value>'`), each a static value in API Gateway's
 * mapping syntax; a value taken from the request is refused.
 */
const staticHeaders = (parameters: unknown, prefix: string, id: string) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, string>)) {
    const literal = /^'(.*)'$/.exec(value)?.[1];
    if (!name.startsWith(prefix) || name === prefix || literal === undefined)
      throw new UnsupportedTemplateError(`${id}: response parameter ${name}=${value} (only static headers)`);
    headers[name.slice(prefix.length)] = literal;
  }
  return headers;
};

const contentHandlingOf = (properties: Record<string, unknown>, id: string): ContentHandling => {
  const handling = contentHandlings.find((known) => known === properties.ContentHandling);
  if (handling === undefined && properties.ContentHandling !== undefined) {
    throw new UnsupportedTemplateError(`${id}: ContentHandling ${String(properties.ContentHandling)}`);
  }
  return handling;
};

/**
 * What a mock integration answers ("Set up mock integrations in API Gateway",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration.html): its request template's
 * `statusCode` picks the integration response whose SelectionPattern matches it, else the one without a pattern; that
 * response's status, static headers and static body. Mapping-template logic (VTL) is refused.
 */
const readMockIntegration = (integration: Record<string, unknown>, id: string) => {
  const requestTemplate = ((integration.RequestTemplates ?? {}) as Record<string, unknown>)['application/json'];
  const selected = /^\s*\{\s*"?statusCode"?\s*:\s*(\d{3})\s*\}\s*$/.exec(String(requestTemplate))?.[1];
  if (selected === undefined) {
    throw new UnsupportedTemplateError(
      `${id}: mock request template ${String(requestTemplate)} (only {statusCode: N})`,
    );
  }
  const responses = (integration.IntegrationResponses ?? []) as Record<string, unknown>[];
  const patterned = responses.find(
    ({ SelectionPattern: pattern }) =>
      typeof pattern === 'string' && pattern !== '' && new RegExp(`^(?:${pattern})$`).test(selected),
  );
  const chosen =
    patterned ?? responses.find(({ SelectionPattern: pattern }) => pattern === undefined || pattern === '');
  if (!chosen) throw new UnsupportedTemplateError(`${id}: no integration response for status ${selected}`);
  const headers = staticHeaders(chosen.ResponseParameters, 'method.response.header.', id);
  const body = ((chosen.ResponseTemplates ?? {}) as Record<string, unknown>)['application/json'] ?? '';
  if (typeof body !== 'string' || /[$#]/.test(body))
    throw new UnsupportedTemplateError(`${id}: mock response template ${String(body)} (only a static body)`);
  return {
    statusCode: Number(chosen.StatusCode),
    headers,
    body,
    requestContentHandling: contentHandlingOf(integration, id),
    responseContentHandling: contentHandlingOf(chosen, `${id} (integration response ${String(chosen.StatusCode)})`),
  };
};

/** What the runner renders in a gateway response template; anything else in one is refused. */
const supportedTemplateVariable =
  /\$context\.(error\.messageString|error\.message|error\.responseType|requestId|authorizer\.\w+)\b/g;

const readGatewayResponses = (resources: Record<string, CfnResource>, apiId: string) => {
  const responses = new Map<string, LocalGatewayResponse>();
  for (const [id, resource] of ofType(resources, 'AWS::ApiGateway::GatewayResponse')) {
    const properties = props(resource);
    if (refOf(properties.RestApiId) !== apiId) continue;
    const templates = (properties.ResponseTemplates ?? {}) as Record<string, string>;
    const template = templates['application/json'];
    if (template?.replace(supportedTemplateVariable, '').match(/[$#]/)) {
      throw new UnsupportedTemplateError(
        `${id}: template ${template} uses mapping-template features beyond $context.error.*, requestId, authorizer.*`,
      );
    }
    responses.set(String(properties.ResponseType), {
      statusCode: properties.StatusCode === undefined ? undefined : Number(properties.StatusCode),
      headers: staticHeaders(properties.ResponseParameters, 'gatewayresponse.header.', id),
      template,
    });
  }
  return responses;
};

/** The chosen stack's name and resources: the one stack in `cloudAssemblyDir`, or `stackName`. */
const stackOf = (cloudAssemblyDir: string, stackName: string | undefined) => {
  const manifest = JSON.parse(readFileSync(join(cloudAssemblyDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(
    ([, artifact]) => artifact.type === 'aws:cloudformation:stack',
  );
  const names = stacks.map(([name]) => name).join(', ');
  const chosen = stackName === undefined ? stacks : stacks.filter(([name]) => name === stackName);
  const [stack] = chosen;
  if (!stack)
    throw new UnsupportedTemplateError(
      stackName === undefined
        ? `${cloudAssemblyDir} has no stack`
        : `${cloudAssemblyDir} has no stack named ${stackName}; its stacks: ${names || 'none'}`,
    );
  if (chosen.length > 1)
    throw new UnsupportedTemplateError(
      `${cloudAssemblyDir} has ${chosen.length} stacks (${names}): choose one with --stack NAME`,
    );
  const [name, artifact] = stack;
  const template = JSON.parse(
    readFileSync(join(cloudAssemblyDir, artifact.properties?.templateFile ?? `${name}.template.json`), 'utf8'),
  ) as CfnTemplate;
  return { name, resources: template.Resources };
};

interface ReadOptions {
  stackName?: string | undefined;
  apiName?: string | undefined;
  layerDirs?: LayerDirs;
}

/**
 * Every REST API of the chosen stack, each read as `readLocalApp` reads one (`apiName` given: that one alone), to be
 * served at once, each at its own address.
 */
export const readLocalApis = (cloudAssemblyDir: string, options: ReadOptions = {}): LocalApp[] => {
  if (options.apiName !== undefined) return [readLocalApp(cloudAssemblyDir, options)];
  const { resources } = stackOf(cloudAssemblyDir, options.stackName);
  const ids = [...ofType(resources, 'AWS::ApiGateway::RestApi'), ...ofType(resources, 'AWS::ApiGatewayV2::Api')].map(
    ([id]) => id,
  );
  return ids.length <= 1
    ? [readLocalApp(cloudAssemblyDir, options)]
    : ids.map((apiName) => readLocalApp(cloudAssemblyDir, { ...options, apiName }));
};

/**
 * What the APIs of one stack share, as one app: every function any of them reaches (their pools are the stack's),
 * and the others, which none reaches, listed.
 */
export const stackApp = (apps: LocalApp[]): LocalApp => {
  const [first, ...others] = apps;
  if (!first) throw new UnsupportedTemplateError('no REST API to serve');
  const functions = new Map([first, ...others].flatMap((app) => [...app.functions]));
  return { ...first, functions, unreachedFunctions: first.unreachedFunctions.filter((id) => !functions.has(id)) };
};

/**
 * The template of the one stack in `cloudAssemblyDir` (or of `stackName`), its one REST API (or `apiName`, by logical
 * id), read into a LocalApp.
 */
export const readLocalApp = (
  cloudAssemblyDir: string,
  { stackName, apiName, layerDirs = {} }: ReadOptions = {},
): LocalApp => {
  const { name, resources } = stackOf(cloudAssemblyDir, stackName);
  const restApis = ofType(resources, 'AWS::ApiGateway::RestApi').map(([id]) => id);
  const httpApis = ofType(resources, 'AWS::ApiGatewayV2::Api').map(([id]) => id);
  const allIds = [...restApis, ...httpApis];
  const chosen = apiName === undefined ? allIds : allIds.filter((id) => id === apiName);
  if (apiName !== undefined && chosen.length === 0)
    throw new UnsupportedTemplateError(`${name} has no API ${apiName}; its APIs: ${allIds.join(', ') || 'none'}`);
  const [apiId] = chosen;
  if (apiId === undefined)
    throw new UnsupportedTemplateError(`${name}: no API (AWS::ApiGateway::RestApi, AWS::ApiGatewayV2::Api) to serve`);
  if (chosen.length > 1)
    throw new UnsupportedTemplateError(
      `${name} has ${chosen.length} APIs (${allIds.join(', ')}): the runner serves one at a time, choose one with --api ID`,
    );
  const otherApiIds = allIds.filter((id) => id !== apiId);
  const tables = ofType(resources, 'AWS::DynamoDB::Table').map(([id, resource]) => ({
    id,
    tableName: String(props(resource).TableName ?? id),
    properties: props(resource),
  }));
  const shared = { stackName: name, apiId, otherApiIds, userPools: readUserPools(resources), tables, resources };

  if (httpApis.includes(apiId)) {
    const httpApi = readHttpApi(resources, apiId, (uri, where) => functionOfUri(uri, where, resources));
    const { functions, unreached } = readFunctions(
      resources,
      cloudAssemblyDir,
      new Set([
        ...httpApi.routes.map(({ functionId }) => functionId),
        ...[...httpApi.authorizers.values()].flatMap((authorizer) =>
          authorizer.type === 'REQUEST' ? [authorizer.functionId] : [],
        ),
      ]),
      layerDirs,
    );
    return {
      ...shared,
      stageName: httpApi.stageName,
      stageVariables: httpApi.stageVariables,
      deployment: 'local',
      binaryMediaTypes: [],
      routes: [],
      authorizers: new Map(),
      gatewayResponses: new Map(),
      httpApi,
      functions,
      unreachedFunctions: unreached,
    };
  }

  const apiResource = resources[apiId] as CfnResource;
  const binaryMediaTypes = props(apiResource).BinaryMediaTypes ?? [];
  if (!Array.isArray(binaryMediaTypes) || !binaryMediaTypes.every((type) => typeof type === 'string')) {
    throw new UnsupportedTemplateError(`${apiId}: BinaryMediaTypes must be a list of media types`);
  }
  const stages = ofType(resources, 'AWS::ApiGateway::Stage').filter(
    ([, stage]) => refOf(props(stage).RestApiId) === apiId,
  );
  const stage = stages.length === 1 && stages[0] ? props(stages[0][1]) : {};
  const stageName = String(stage.StageName ?? 'local');
  const variables = (stage.Variables ?? {}) as Record<string, unknown>;
  if (!Object.values(variables).every((value) => typeof value === 'string'))
    throw new UnsupportedTemplateError(`${apiId}: a stage variable whose value is not a string (an intrinsic)`);

  const routes = readRoutes(resources, apiId);
  const authorizers = readAuthorizers(resources, apiId);
  const reached = new Set([
    ...routes.flatMap((route) => (route.integration === 'proxy' ? [route.functionId] : [])),
    ...[...authorizers.values()].flatMap((authorizer) => ('functionId' in authorizer ? [authorizer.functionId] : [])),
  ]);
  const { functions, unreached } = readFunctions(resources, cloudAssemblyDir, reached, layerDirs);
  return {
    ...shared,
    stageName,
    stageVariables: variables as Record<string, string>,
    deployment: refOf(stage.DeploymentId) ?? 'local',
    binaryMediaTypes,
    routes,
    authorizers,
    gatewayResponses: readGatewayResponses(resources, apiId),
    httpApi: undefined,
    functions,
    unreachedFunctions: unreached,
  };
};
