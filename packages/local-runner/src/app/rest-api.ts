// A REST API of the template (AWS::ApiGateway::RestApi) as the runner serves it: its stages, its methods' routes
// (Lambda proxy and MOCK integrations, request validation, API keys), its authorizers (TOKEN, REQUEST and
// COGNITO_USER_POOLS) and its gateway responses. What the runner cannot reproduce faithfully is refused, each named.
import { readApiKeys } from './api-keys.ts';
import {
  type CfnResource,
  getAttOf,
  type IdentitySource,
  ofType,
  props,
  refuseRoutesOutsideResources,
  UnsupportedTemplateError,
} from './cfn.ts';
import type { ValueContext } from './intrinsics.ts';
import { type RequestValidation, readRequestValidation } from './request-validation.ts';
import { checkResourcePolicy } from './resource-policy.ts';
import {
  type MockIntegration,
  type NonProxyIntegration,
  readMockIntegration,
  readNonProxyIntegration,
} from './rest-integrations.ts';
import { readStages } from './stages.ts';
import { localPoolId } from './user-pools.ts';
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

/** Finds the function an integration's or authorizer's URI names (assembly.ts: of this stack or another). */
type FunctionOf = (uri: unknown, where: string) => { functionId: string; qualifier?: string };

interface AuthorizerBase {
  id: string;
  functionId: string;
  /** The alias API Gateway invokes (the URI's), if any. */
  qualifier?: string;
  ttlSeconds: number;
}

/** A TOKEN authorizer: the token in one header, checked against a pattern before any invocation. */
interface TokenAuthorizerDefinition extends AuthorizerBase {
  type: 'TOKEN';
  /** The request header carrying the token. */
  headerName: string;
  /** Must match the whole header value; API Gateway answers 401 itself otherwise. */
  validation: RegExp | undefined;
}

/** A REQUEST authorizer: the request's parts, its identity sources required and the cache's key. */
interface RequestAuthorizerDefinition extends AuthorizerBase {
  type: 'REQUEST';
  identitySources: IdentitySource[];
}

/** A Cognito user pool authorizer: a token of one of its pools in one header (the development issuer signs them). */
export interface UserPoolAuthorizerDefinition {
  id: string;
  type: 'COGNITO_USER_POOLS';
  ttlSeconds: number;
  headerName: string;
  validation: RegExp | undefined;
  /** The ids of the pools whose tokens it takes. */
  poolIds: string[];
}

/** An authorizer that invokes a function. */
export type LambdaAuthorizerDefinition = TokenAuthorizerDefinition | RequestAuthorizerDefinition;

export type RestAuthorizer = LambdaAuthorizerDefinition | UserPoolAuthorizerDefinition;

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
  /** ApiKeyRequired: the request's X-API-Key must be one of the API's keys for its stage (RestApi's `apiKeys`). */
  apiKeyRequired: boolean;
  /** AuthorizationType AWS_IAM: the request must be signed with SigV4 (gateway/sigv4.ts). */
  iam: boolean;
}

/** A Lambda proxy integration (`AWS_PROXY`): the function answers. */
export interface ProxyRoute extends RouteBase {
  integration: 'proxy';
  functionId: string;
  /** The alias API Gateway invokes (the URI's), if any. */
  qualifier?: string;
  integrationTimeoutMs: number;
  /** ResponseTransferMode STREAM: the function's response streamed to the client as it comes. */
  streamed: boolean;
}

export type { ContentHandling } from './rest-integrations.ts';

/** A mock integration (`MOCK`, such as a CORS preflight): API Gateway answers itself, as its templates say. */
export interface MockRoute extends RouteBase, MockIntegration {
  integration: 'mock';
}

/** A non-proxy integration (AWS, HTTP, HTTP_PROXY: rest-integrations.ts), mapped by its templates and parameters. */
export interface IntegratedRoute extends RouteBase, NonProxyIntegration {
  integration: 'integrated';
}

export type RestRoute = ProxyRoute | MockRoute | IntegratedRoute;

export interface GatewayResponse {
  statusCode: number | undefined;
  headers: Record<string, string>;
  /** The application/json template, if any. */
  template: string | undefined;
}

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

const restApiTypes = ['AWS::ApiGateway::RestApi'] as const;

/** Whether the resource `id` (`properties` its properties) is of the REST API `apiId`: its RestApiId names it. */
const ofRestApi = (
  properties: Record<string, unknown>,
  resources: Record<string, CfnResource>,
  apiId: string,
  id: string,
) => names(properties.RestApiId, apiId, resources, { resource: id, property: 'RestApiId' }, restApiTypes);

/** The header an identity source `method.request.header.NAME` names; anything else refused. */
const headerOf = (value: unknown, id: string) => {
  const source = stringOf(value, { resource: id, property: 'IdentitySource' }, '');
  const name = /^method\.request\.header\.(.+)$/.exec(source)?.[1];
  if (!name) throw new UnsupportedTemplateError(`${id}: identity source ${source}`);
  return name;
};

const readAuthorizers = (resources: Record<string, CfnResource>, apiId: string, functionOf: FunctionOf) => {
  const authorizers = new Map<string, RestAuthorizer>();
  for (const [id, resource] of ofType(resources, 'AWS::ApiGateway::Authorizer')) {
    const properties = props(resource);
    if (!ofRestApi(properties, resources, apiId, id)) continue;
    const at = (property: string) => ({ resource: id, property });
    const ttlSeconds = numberOf(properties.AuthorizerResultTtlInSeconds, at('AuthorizerResultTtlInSeconds'), 300);
    const expression = stringOf(properties.IdentityValidationExpression, at('IdentityValidationExpression'), undefined);
    // API Gateway matches the whole value, as Java's matches() does.
    const validation = expression === undefined ? undefined : new RegExp(`^(?:${expression})$`);
    const type = stringOf(properties.Type, at('Type'), undefined);
    if (type === 'COGNITO_USER_POOLS') {
      const headerName = headerOf(properties.IdentitySource, id);
      const arns = properties.ProviderARNs ?? [];
      if (!Array.isArray(arns)) throw new UnsupportedTemplateError(`${id}: ProviderARNs ${JSON.stringify(arns)}`);
      const poolIds = arns.map((arn: unknown) => {
        const [poolLogicalId, attribute] = getAttOf(arn) ?? [];
        const poolId =
          attribute === 'Arn' && resources[poolLogicalId ?? '']?.Type === 'AWS::Cognito::UserPool'
            ? localPoolId(poolLogicalId as string)
            : typeof arn === 'string'
              ? /:userpool\/([^/]+)$/.exec(arn)?.[1]
              : undefined;
        if (poolId === undefined) throw new UnsupportedTemplateError(`${id}: user pool ${JSON.stringify(arn)}`);
        return poolId;
      });
      authorizers.set(id, { id, type: 'COGNITO_USER_POOLS', ttlSeconds, headerName, validation, poolIds });
      continue;
    }
    if (type !== 'TOKEN' && type !== 'REQUEST')
      throw new UnsupportedTemplateError(
        `${id}: authorizer type ${String(type)} (only TOKEN, REQUEST and COGNITO_USER_POOLS)`,
      );
    const base = { id, ...functionOf(properties.AuthorizerUri, `${id} (AuthorizerUri)`), ttlSeconds };
    if (type === 'REQUEST') {
      authorizers.set(id, {
        ...base,
        type: 'REQUEST',
        identitySources: identitySourcesOf(stringOf(properties.IdentitySource, at('IdentitySource'), ''), id),
      });
      continue;
    }
    authorizers.set(id, { ...base, type: 'TOKEN', headerName: headerOf(properties.IdentitySource, id), validation });
  }
  return authorizers;
};

const readRoutes = (
  resources: Record<string, CfnResource>,
  apiId: string,
  functionOf: FunctionOf,
  authorizers: Map<string, RestAuthorizer>,
  app: ValueContext,
): RestRoute[] => {
  /** The path of the resource `value` (a property of `where`) names: the API's root, or a Resource of the API. */
  const pathOf = (value: unknown, where: Where): string => {
    const [rootOf, attribute] = getAttOf(value) ?? [];
    if (attribute === 'RootResourceId') {
      // "RootResourceId: The root resource ID for a RestApi resource" (AWS::ApiGateway::RestApi, Return values).
      if (rootOf !== apiId)
        throw new UnsupportedTemplateError(
          `${where.resource}: ${where.property} ${JSON.stringify(value)}, the root of another API`,
        );
      return '';
    }
    const id = referencedId(value, resources, where, ['AWS::ApiGateway::Resource']);
    const properties = props(resources[id] as CfnResource);
    if (!ofRestApi(properties, resources, apiId, id))
      throw new UnsupportedTemplateError(
        `${where.resource}: ${where.property} ${JSON.stringify(value)}, a resource of another API`,
      );
    const part = stringOf(properties.PathPart, { resource: id, property: 'PathPart' }, '');
    return `${pathOf(properties.ParentId, { resource: id, property: 'ParentId' })}/${part}`;
  };
  const refused: string[] = [];
  const routes = ofType(resources, 'AWS::ApiGateway::Method').flatMap(([id, resource]): RestRoute[] => {
    const properties = props(resource);
    if (!ofRestApi(properties, resources, apiId, id)) return [];
    const at = (property: string) => ({ resource: id, property });
    const base = {
      resourcePath: pathOf(properties.ResourceId, at('ResourceId')) || '/',
      method: stringOf(properties.HttpMethod, at('HttpMethod'), ''),
      authorizerId: undefined as string | undefined,
      authorizationScopes: stringsOf(properties.AuthorizationScopes, at('AuthorizationScopes')),
      apiKeyRequired: booleanOf(properties.ApiKeyRequired, at('ApiKeyRequired'), false),
      iam: false,
    };
    const where = `${id} (${base.method} ${base.resourcePath})`;
    const validation = readRequestValidation(properties, resources, apiId, where, id);
    const integration = (properties.Integration ?? {}) as Record<string, unknown>;
    const unsupported = unsupportedIntegration(integration);
    if (unsupported !== undefined) {
      refused.push(`${where}: ${unsupported}`);
      return [];
    }
    const authorization = stringOf(properties.AuthorizationType, at('AuthorizationType'), 'NONE');
    if (!['NONE', 'AWS_IAM', 'CUSTOM', 'COGNITO_USER_POOLS'].includes(authorization)) {
      throw new UnsupportedTemplateError(
        `${where}: authorization type ${authorization} (only NONE, AWS_IAM, CUSTOM and COGNITO_USER_POOLS)`,
      );
    }
    refuseAuthorizerWithoutType(properties.AuthorizerId, authorization, where, 'CUSTOM or COGNITO_USER_POOLS');
    base.iam = authorization === 'AWS_IAM';
    if (authorization !== 'NONE' && !base.iam) {
      const authorizerId = referencedId(properties.AuthorizerId, resources, at('AuthorizerId'), [
        'AWS::ApiGateway::Authorizer',
      ]);
      if (!authorizers.has(authorizerId))
        throw new UnsupportedTemplateError(`${where}: AuthorizerId ${authorizerId}, an authorizer of another API`);
      base.authorizerId = authorizerId;
    }
    if (integration.Type !== 'AWS_PROXY') {
      try {
        if (integration.Type === 'MOCK')
          return [
            { ...base, validation, integration: 'mock', ...readMockIntegration(integration, { app, id, where }) },
          ];
        const read = readNonProxyIntegration(integration, { app, functionOf, id, where });
        return [{ ...base, validation, integration: 'integrated', ...read }];
      } catch (error) {
        if (!(error instanceof UnsupportedTemplateError)) throw error;
        refused.push(error.message);
        return [];
      }
    }
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
        ...functionOf(integration.Uri, `${id} (Integration.Uri)`),
        integrationTimeoutMs: numberOf(integration.TimeoutInMillis, at('Integration.TimeoutInMillis'), 29_000),
        streamed: transferMode(integration.ResponseTransferMode, at('Integration.ResponseTransferMode')) === 'STREAM',
      },
    ];
  });
  // Every method the runner cannot serve, named at once: a user fixes them together, or learns the runner is not for
  // this API.
  if (refused.length > 0)
    throw new UnsupportedTemplateError(
      `the runner does not serve these methods' integrations (it serves AWS_PROXY, MOCK, Lambda and served services' AWS, HTTP and HTTP_PROXY):\n${refused.map((line) => `  ${line}`).join('\n')}`,
    );
  return routes;
};

/** An integration's ResponseTransferMode: BUFFERED (the default) or STREAM; anything else refused. */
const transferMode = (value: unknown, where: Where) => {
  const mode = stringOf(value, where, 'BUFFERED');
  if (mode !== 'BUFFERED' && mode !== 'STREAM')
    throw new UnsupportedTemplateError(`${where.resource}: ${where.property} ${mode} (BUFFERED or STREAM)`);
  return mode;
};

/**
 * Why the runner does not serve an integration, named as the API Gateway console names it; undefined for the types it
 * serves (a non-proxy one's own refusals are rest-integrations.ts's).
 */
const unsupportedIntegration = (integration: Record<string, unknown>) => {
  const type = String(integration.Type);
  // "Stream the integration response for your proxy integrations in API Gateway": a Lambda proxy integration's alone.
  if (integration.ResponseTransferMode === 'STREAM' && type !== 'AWS_PROXY')
    return `a response-streaming integration (${type}, ResponseTransferMode STREAM), which the runner streams from Lambda proxy integrations alone`;
  if (['AWS_PROXY', 'MOCK', 'AWS', 'HTTP', 'HTTP_PROXY'].includes(type)) return undefined;
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

/** What the runner renders in a gateway response template; anything else in one is refused. */
const supportedTemplateVariable =
  /\$context\.(error\.messageString|error\.message|error\.responseType|requestId|authorizer\.\w+)\b/g;

const readGatewayResponses = (resources: Record<string, CfnResource>, apiId: string) => {
  const responses = new Map<string, GatewayResponse>();
  for (const [id, resource] of ofType(resources, 'AWS::ApiGateway::GatewayResponse')) {
    const properties = props(resource);
    if (!ofRestApi(properties, resources, apiId, id)) continue;
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

/** What a REST API serves: a RestApi's own fields (api.ts), read from `resources` of stack `stackName`. */
export const readRestApi = (
  resources: Record<string, CfnResource>,
  apiId: string,
  stackName: string,
  functionOf: FunctionOf,
  app: ValueContext = { stackName, resources, tables: [], exports: new Map() },
) => {
  const apiResource = resources[apiId] as CfnResource;
  refuseRoutesOutsideResources(apiResource, apiId);
  checkResourcePolicy(apiResource, apiId);
  const binaryMediaTypes = props(apiResource).BinaryMediaTypes ?? [];
  if (!Array.isArray(binaryMediaTypes) || !binaryMediaTypes.every((type) => typeof type === 'string')) {
    throw new UnsupportedTemplateError(`${apiId}: BinaryMediaTypes must be a list of media types`);
  }
  const stages = readStages(
    ofType(resources, 'AWS::ApiGateway::Stage').filter(([id, stage]) => ofRestApi(props(stage), resources, apiId, id)),
    resources,
    apiId,
    'AWS::ApiGateway::Stage',
  );
  const authorizers = readAuthorizers(resources, apiId, functionOf);
  const routes = readRoutes(resources, apiId, functionOf, authorizers, app);
  const { keys, notices } = readApiKeys(resources, apiId, stackName);
  return {
    stages,
    binaryMediaTypes,
    routes,
    authorizers,
    gatewayResponses: readGatewayResponses(resources, apiId),
    apiKeys: keys,
    notices,
  };
};
