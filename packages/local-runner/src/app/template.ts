// Reads a synthesized CloudFormation template into what the local runner serves: the REST API's routes, TOKEN
// authorizers and gateway responses, the Lambda functions (their bundled assets) and the DynamoDB tables.
// Anything the runner cannot reproduce faithfully stops it here, with a message naming the resource.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunnerError } from '../errors.ts';
import { type LocalApiKey, readApiKeys } from './api-keys.ts';
import {
  type CfnResource,
  getAttOf,
  type IdentitySource,
  type LocalStage,
  ofType,
  props,
  refOf,
  UnsupportedTemplateError,
} from './cfn.ts';
import { type LayerDirs, type LocalFunction, readFunctions } from './functions.ts';
import { type LocalHttpApi, readHttpApi } from './http-api.ts';
import { type ExportedValue, resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { type RequestValidation, readRequestValidation } from './request-validation.ts';
import { checkResourcePolicy } from './resource-policy.ts';
import { readStages } from './stages.ts';
import { type LocalUserPool, localPoolId, readUserPools } from './user-pools.ts';
import {
  booleanOf,
  type DeployedTemplate,
  deployedResources,
  names,
  numberOf,
  referencedId,
  refuseAuthorizerWithoutType,
  stringOf,
  stringsOf,
  type Where,
} from './values.ts';

export type { IdentitySource } from './cfn.ts';
export type { LocalFunction } from './functions.ts';

interface CfnTemplate extends DeployedTemplate {
  Outputs?: Record<string, { Value?: unknown; Export?: { Name?: unknown } }>;
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
  /** ApiKeyRequired: the request's X-API-Key must be one of the API's keys for its stage (LocalApp's `apiKeys`). */
  apiKeyRequired: boolean;
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
  /** No integration response answers it: API Gateway's configuration error (500) in place of the fields above. */
  unanswered: boolean;
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

export interface LocalApp extends ValueContext {
  stackName: string;
  apiId: string;
  /** The stack's other APIs (REST and HTTP), not served by this app (each has its own). */
  otherApiIds: string[];
  /** Set when the API is an HTTP API (its routes, stage and JWT authorizers); the REST fields are then empty. */
  httpApi: LocalHttpApi | undefined;
  /** Its stages, each serving the template's routes under its name (the path's first segment). */
  stages: LocalStage[];
  /** The stage a request is served by (the gateway's view of the app; the first stage until then). */
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
  /** The API keys its methods that require one take (a REST API's). */
  apiKeys: LocalApiKey[];
  /** What of the API applies on AWS and not locally, said at start. */
  notices: string[];
  /** The functions a route or an authorizer reaches: those served. */
  functions: Map<string, LocalFunction>;
  /** Of those, the ones of another stack (a cross-stack reference), by id, with the stack they are resolved in. */
  functionStacks: Map<string, ValueContext>;
  /** The template's Cognito user pools, whose tokens the development issuer signs. */
  userPools: LocalUserPool[];
  /** The template's other functions (custom resources, log retention, queue consumers): not served, not read. */
  unreachedFunctions: string[];
  tables: LocalTable[];
  resources: Record<string, CfnResource>;
}

/** What an integration's or authorizer's URI names: a function (of this stack, or of `stack` when imported). */
interface UriTarget {
  functionId: string;
  qualifier?: string;
}

/**
 * Finds the function a URI of `stack` names, and keeps, by id, those that are another stack's: a cross-stack
 * reference (the CDK's Fn::ImportValue of the function's Arn, which the other stack exports).
 */
const functionFinder = (stack: ValueContext) => {
  const imported = new Map<string, ValueContext>();
  const own = new Set<string>();
  const functionOf = (uri: unknown, where: string): UriTarget => {
    // A REST API's URI joins the function's ARN into an API Gateway path; an HTTP API's IntegrationUri is the ARN.
    const parts =
      typeof uri === 'object' && uri !== null && 'Fn::Join' in uri
        ? (uri['Fn::Join'] as [string, unknown[]])[1]
        : [uri];
    const targets = parts.flatMap((part): (UriTarget & { from?: ValueContext })[] => {
      const att = getAttOf(part);
      if (att?.[1] === 'Arn' && stack.resources[att[0]]?.Type === 'AWS::Lambda::Function')
        return [{ functionId: att[0] }];
      if (typeof part === 'object' && part !== null && 'Fn::ImportValue' in part) {
        const name = resolveValue(part['Fn::ImportValue'], stack);
        const exported = stack.exports.get(name);
        const [id, attribute] = getAttOf(exported?.value) ?? [];
        if (!exported || attribute !== 'Arn' || exported.stack.resources[id ?? '']?.Type !== 'AWS::Lambda::Function')
          throw new UnsupportedTemplateError(
            `${where}: its URI imports ${name}, which no stack of the assembly exports as a function's Arn`,
          );
        return [{ functionId: id as string, from: exported.stack }];
      }
      // An alias (its Ref is its ARN) serves, locally, the current code of the function it names.
      const ref = refOf(part);
      const alias = ref === undefined ? undefined : stack.resources[ref];
      const aliased = alias?.Type === 'AWS::Lambda::Alias' ? refOf(props(alias).FunctionName) : undefined;
      const name = alias === undefined ? undefined : props(alias).Name;
      return aliased === undefined
        ? []
        : [{ functionId: aliased, ...(typeof name === 'string' && { qualifier: name }) }];
    });
    const [target] = targets;
    if (targets.length !== 1 || !target?.functionId)
      throw new UnsupportedTemplateError(`${where}: its URI does not name one Lambda function of the template`);
    const { from, ...found } = target;
    // The API's functions are served by id: two of different stacks with the same id cannot be.
    const earlier = imported.get(found.functionId);
    if (from ? own.has(found.functionId) || (earlier !== undefined && earlier !== from) : earlier !== undefined)
      throw new UnsupportedTemplateError(
        `${where}: its function ${found.functionId} has the id of another stack's function this API reaches, which locally is one`,
      );
    if (from) imported.set(found.functionId, from);
    else own.add(found.functionId);
    return found;
  };
  return { functionOf, imported };
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

const readAuthorizers = (
  resources: Record<string, CfnResource>,
  apiId: string,
  functionOf: ReturnType<typeof functionFinder>['functionOf'],
) => {
  const authorizers = new Map<string, LocalAuthorizer>();
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
    const base = { id, ...functionOf(properties.AuthorizerUri, id), ttlSeconds };
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
  functionOf: ReturnType<typeof functionFinder>['functionOf'],
  authorizers: Map<string, LocalAuthorizer>,
): LocalRoute[] => {
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
  const routes = ofType(resources, 'AWS::ApiGateway::Method').flatMap(([id, resource]): LocalRoute[] => {
    const properties = props(resource);
    if (!ofRestApi(properties, resources, apiId, id)) return [];
    const at = (property: string) => ({ resource: id, property });
    const base = {
      resourcePath: pathOf(properties.ResourceId, at('ResourceId')) || '/',
      method: stringOf(properties.HttpMethod, at('HttpMethod'), ''),
      authorizerId: undefined as string | undefined,
      authorizationScopes: stringsOf(properties.AuthorizationScopes, at('AuthorizationScopes')),
      apiKeyRequired: booleanOf(properties.ApiKeyRequired, at('ApiKeyRequired'), false),
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
    if (!['NONE', 'CUSTOM', 'COGNITO_USER_POOLS'].includes(authorization)) {
      throw new UnsupportedTemplateError(
        `${where}: authorization type ${authorization} (only NONE, CUSTOM and COGNITO_USER_POOLS)`,
      );
    }
    refuseAuthorizerWithoutType(properties.AuthorizerId, authorization, where, 'CUSTOM or COGNITO_USER_POOLS');
    if (authorization !== 'NONE') {
      const authorizerId = referencedId(properties.AuthorizerId, resources, at('AuthorizerId'), [
        'AWS::ApiGateway::Authorizer',
      ]);
      if (!authorizers.has(authorizerId))
        throw new UnsupportedTemplateError(`${where}: AuthorizerId ${authorizerId}, an authorizer of another API`);
      base.authorizerId = authorizerId;
    }
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
        ...functionOf(integration.Uri, id),
        integrationTimeoutMs: numberOf(integration.TimeoutInMillis, at('Integration.TimeoutInMillis'), 29_000),
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
 * `statusCode` picks the integration response whose SelectionPattern matches it, else the one without a pattern;
 * without a request template, "the default integration response ... the one with an undefined HTTP status regex".
 * That response's status, static headers and static body. No response chosen: API Gateway's configuration error, 500
 * (`unanswered`). Mapping-template logic (VTL) is refused.
 */
const readMockIntegration = (integration: Record<string, unknown>, id: string) => {
  const templates = (integration.RequestTemplates ?? {}) as Record<string, unknown>;
  const requestTemplate = templates['application/json'];
  // Templates for other content types alone, or none with PassthroughBehavior NEVER (415 for every request):
  // which template, or whether any, applies depends on the request's Content-Type, which the runner does not follow.
  if (
    (requestTemplate === undefined && Object.keys(templates).length > 0) ||
    (Object.keys(templates).length === 0 && integration.PassthroughBehavior === 'NEVER')
  )
    throw new UnsupportedTemplateError(
      `${id}: a mock's request templates ${JSON.stringify(Object.keys(templates))} with PassthroughBehavior ${String(integration.PassthroughBehavior ?? 'WHEN_NO_MATCH')} (only an application/json template, or none)`,
    );
  const selected =
    requestTemplate === undefined
      ? undefined
      : /^\s*\{\s*"?statusCode"?\s*:\s*(\d{3})\s*\}\s*$/.exec(String(requestTemplate))?.[1];
  if (requestTemplate !== undefined && selected === undefined) {
    throw new UnsupportedTemplateError(
      `${id}: mock request template ${String(requestTemplate)} (only {statusCode: N})`,
    );
  }
  const responses = (integration.IntegrationResponses ?? []) as Record<string, unknown>[];
  const patterned =
    selected === undefined
      ? undefined
      : responses.find(
          ({ SelectionPattern: pattern }) =>
            typeof pattern === 'string' && pattern !== '' && new RegExp(`^(?:${pattern})$`).test(selected),
        );
  const chosen =
    patterned ?? responses.find(({ SelectionPattern: pattern }) => pattern === undefined || pattern === '');
  const requestContentHandling = contentHandlingOf(integration, id);
  if (!chosen)
    return {
      statusCode: 500,
      headers: {},
      body: '',
      requestContentHandling,
      responseContentHandling: undefined,
      unanswered: true,
    };
  const headers = staticHeaders(chosen.ResponseParameters, 'method.response.header.', id);
  const body = ((chosen.ResponseTemplates ?? {}) as Record<string, unknown>)['application/json'] ?? '';
  if (typeof body !== 'string' || /[$#]/.test(body))
    throw new UnsupportedTemplateError(`${id}: mock response template ${String(body)} (only a static body)`);
  return {
    statusCode: Number(chosen.StatusCode),
    headers,
    body,
    requestContentHandling,
    responseContentHandling: contentHandlingOf(chosen, `${id} (integration response ${String(chosen.StatusCode)})`),
    unanswered: false,
  };
};

/** What the runner renders in a gateway response template; anything else in one is refused. */
const supportedTemplateVariable =
  /\$context\.(error\.messageString|error\.message|error\.responseType|requestId|authorizer\.\w+)\b/g;

const readGatewayResponses = (resources: Record<string, CfnResource>, apiId: string) => {
  const responses = new Map<string, LocalGatewayResponse>();
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

interface AssemblyStack {
  name: string;
  resources: Record<string, CfnResource>;
  /** Its tables, its Refs' and the local database's. */
  tables: LocalTable[];
}

const tablesOf = (resources: Record<string, CfnResource>): LocalTable[] =>
  ofType(resources, 'AWS::DynamoDB::Table').map(([id, resource]) => ({
    id,
    tableName: String(props(resource).TableName ?? id),
    properties: props(resource),
  }));

/**
 * Every stack of the cloud assembly in `cloudAssemblyDir`, and what they export (a cross-stack reference of the CDK is
 * an Output's Export in one stack and an Fn::ImportValue in another), each export resolved in its own stack.
 */
const assemblyOf = (cloudAssemblyDir: string) => {
  const manifest = JSON.parse(readFileSync(join(cloudAssemblyDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const exports = new Map<string, ExportedValue>();
  const stacks = Object.entries(manifest.artifacts ?? {})
    .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
    .map(([name, artifact]): AssemblyStack => {
      const template = JSON.parse(
        readFileSync(join(cloudAssemblyDir, artifact.properties?.templateFile ?? `${name}.template.json`), 'utf8'),
      ) as CfnTemplate;
      const resources = deployedResources(template, name);
      const stack = { name, resources, tables: tablesOf(resources) };
      const context: ValueContext = { stackName: name, tables: stack.tables, resources: stack.resources, exports };
      for (const output of Object.values(template.Outputs ?? {})) {
        if (output.Export?.Name === undefined) continue;
        try {
          exports.set(resolveValue(output.Export.Name, context), { value: output.Value, stack: context });
        } catch (error) {
          // A name with no local value: nothing can import it locally (the import says it finds no such export).
          if (!(error instanceof UnresolvableValueError)) throw error;
        }
      }
      return stack;
    });
  return { stacks, exports };
};

/** The chosen stack: the one stack in `cloudAssemblyDir`, or `stackName`; with the assembly's exports. */
const stackOf = (
  { stacks, exports }: ReturnType<typeof assemblyOf>,
  cloudAssemblyDir: string,
  stackName: string | undefined,
) => {
  const names = stacks.map(({ name }) => name).join(', ');
  const chosen = stackName === undefined ? stacks : stacks.filter(({ name }) => name === stackName);
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
  return { ...stack, exports };
};

interface ReadOptions {
  stackName?: string | undefined;
  apiName?: string | undefined;
  layerDirs?: LayerDirs;
}

const apiIdsOf = (resources: Record<string, CfnResource>) =>
  [...ofType(resources, 'AWS::ApiGateway::RestApi'), ...ofType(resources, 'AWS::ApiGatewayV2::Api')].map(([id]) => id);

/** What the runner serves of a cloud assembly. */
export interface LocalAssembly {
  /** Each API served, read as its own app (readLocalApp), to be served at once, each at its own address. */
  apis: LocalApp[];
  /**
   * Every table of the assembly, whichever stack declares it (another stack's functions may import its name), as
   * they all exist once the app is deployed.
   */
  tables: LocalTable[];
  /** The stacks served with no API (only their tables serve). */
  stacksWithoutApi: string[];
  /** What of the assembly applies to the APIs on AWS and not locally, said at start. */
  notices: string[];
  /** Every function of every stack (served or not), as `--env-vars` may name it: its logical id, and `Stack/id`. */
  functionKeys: string[];
}

const functionKeysOf = (stacks: AssemblyStack[]) =>
  stacks.flatMap(({ name, resources }) =>
    ofType(resources, 'AWS::Lambda::Function').flatMap(([id]) => [id, `${name}/${id}`]),
  );

/** What of the assembly no local part serves or applies: a WAF web ACL on an API's stage, a function URL. */
const noticesOf = (stacks: AssemblyStack[]) =>
  stacks.flatMap(({ name, resources }) => [
    ...ofType(resources, 'AWS::WAFv2::WebACLAssociation').map(
      ([id]) =>
        `${name}/${id}: a WAF web ACL association, which the runner does not apply: requests its rules would block (403 on AWS) are served`,
    ),
    // A function URL is an address of its own that clients call: said by name, not only listed as unreached.
    ...ofType(resources, 'AWS::Lambda::Url').map(
      ([id, url]) =>
        `${name}/${id}: a function URL (of ${getAttOf(props(url).TargetFunctionArn)?.[0] ?? refOf(props(url).TargetFunctionArn) ?? 'a function'}), which the runner does not serve`,
    ),
  ]);

/**
 * What the runner serves of the assembly in `cloudAssemblyDir`: every API of every stack (`stackName`: of that stack;
 * `apiName`: that API alone), each read as `readLocalApp` reads one. The stacks' functions are served by logical id
 * and their tables by name in one account, so two stacks served at once that share a function's id or a table's name
 * are refused, naming them.
 */
export const readAssembly = (cloudAssemblyDir: string, options: ReadOptions = {}): LocalAssembly => {
  const assembly = assemblyOf(cloudAssemblyDir);
  const { stacks } = assembly;
  const { stackName, apiName } = options;
  if (stackName !== undefined || stacks.length <= 1) {
    const stack = stackOf(assembly, cloudAssemblyDir, stackName);
    const ids = apiName === undefined ? apiIdsOf(stack.resources) : [apiName];
    const apis =
      ids.length <= 1
        ? [readApp(cloudAssemblyDir, assembly, { ...options, stackName: stack.name })]
        : ids.map((id) => readApp(cloudAssemblyDir, assembly, { ...options, stackName: stack.name, apiName: id }));
    // One stack served: the others' tables are there as deployed, one of each name.
    const others = stacks.filter(({ name }) => name !== stack.name);
    const tables = new Map(
      [...others, stack].flatMap(({ tables }) => tables.map((table) => [table.tableName, table] as const)),
    );
    return {
      apis,
      tables: [...tables.values()],
      stacksWithoutApi: [],
      notices: [...new Set([...noticesOf(stacks), ...apis.flatMap(({ notices }) => notices)])],
      functionKeys: functionKeysOf(stacks),
    };
  }
  const withApis = stacks.filter(({ resources }) =>
    apiIdsOf(resources).some((id) => apiName === undefined || id === apiName),
  );
  const names = stacks.map(({ name }) => name).join(', ');
  if (withApis.length === 0)
    throw new UnsupportedTemplateError(
      apiName === undefined
        ? `${cloudAssemblyDir}: none of its stacks (${names}) has an API (AWS::ApiGateway::RestApi, AWS::ApiGatewayV2::Api) to serve`
        : `${cloudAssemblyDir}: none of its stacks (${names}) has an API ${apiName}`,
    );
  if (apiName !== undefined && withApis.length > 1)
    throw new UnsupportedTemplateError(
      `${apiName} is an API of ${withApis.map(({ name }) => name).join(' and ')}: choose one with --stack NAME`,
    );
  const apis = withApis.flatMap(({ name, resources }) =>
    (apiName === undefined ? apiIdsOf(resources) : [apiName]).map((id) =>
      readApp(cloudAssemblyDir, assembly, { ...options, stackName: name, apiName: id }),
    ),
  );
  refuseSharedTableNames(stacks);
  refuseSharedPoolIds(withApis);
  return {
    apis,
    tables: stacks.flatMap(({ tables }) => tables),
    stacksWithoutApi: stacks.filter(({ resources }) => apiIdsOf(resources).length === 0).map(({ name }) => name),
    notices: [...new Set([...noticesOf(stacks), ...apis.flatMap(({ notices }) => notices)])],
    functionKeys: functionKeysOf(stacks),
  };
};

/**
 * Refuses two stacks with a table of the same name: locally a table's name is its TableName or else its logical id
 * (on AWS, CloudFormation makes one up with the stack's name in it), and the stacks' functions would share one table.
 */
const refuseSharedTableNames = (stacks: AssemblyStack[]) => {
  const stackOfTable = new Map<string, string>();
  for (const { name, tables } of stacks)
    for (const { tableName } of tables) {
      const other = stackOfTable.get(tableName);
      if (other !== undefined && other !== name)
        throw new UnsupportedTemplateError(
          `${other} and ${name} both have a table named ${tableName}, which locally is one: serve one stack at a time with --stack NAME`,
        );
      stackOfTable.set(tableName, name);
    }
};

/**
 * Refuses two stacks served at once with a user pool of the same logical id: the development issuer stands in for a
 * pool by its logical id (user-pools.ts), so one pool's tokens would pass the other's authorizers, two pools on AWS.
 */
const refuseSharedPoolIds = (stacks: AssemblyStack[]) => {
  const stackOfPool = new Map<string, string>();
  for (const { name, resources } of stacks)
    for (const [id] of ofType(resources, 'AWS::Cognito::UserPool')) {
      const other = stackOfPool.get(id);
      if (other !== undefined)
        throw new UnsupportedTemplateError(
          `${other} and ${name} both have a user pool ${id}, which locally is one issuer: serve one stack at a time with --stack NAME`,
        );
      stackOfPool.set(id, name);
    }
};

/**
 * A function served, once however many APIs of its stack reach it: its name in the runner's messages and options
 * (`--inspect`, `--env-vars`, `invoke`), and the app its values are resolved in (its stack's). The name is its
 * logical id, or `Stack/id` when several stacks are served: two may have a function of the same id, as the CDK gives
 * one construct the same id in each stack it is in.
 */
export interface ServedFunction {
  name: string;
  fn: LocalFunction;
  /** The first API that reaches it. */
  app: LocalApp;
  /** Where its values are resolved: its own stack (the API's, or the one it is imported from). */
  context: ValueContext;
}

/** The stack a function `app` reaches is of: `app`'s, or the one it imports it from. */
export const functionContext = (app: LocalApp, id: string): ValueContext => app.functionStacks.get(id) ?? app;

/**
 * How the functions the APIs reach are named (ServedFunction): by id, or `Stack/id` when they are of several stacks.
 * `nameOf(app, id)`: the name of the function `app` reaches by `id`.
 */
export const functionNames = ({ apis }: LocalAssembly) => {
  const stacks = new Set(
    apis.flatMap((app) => [...app.functions.keys()].map((id) => functionContext(app, id).stackName)),
  );
  return (app: LocalApp, id: string) => (stacks.size > 1 ? `${functionContext(app, id).stackName}/${id}` : id);
};

export const servedFunctions = (assembly: LocalAssembly): ServedFunction[] => {
  const nameOf = functionNames(assembly);
  const served = new Map<string, ServedFunction>();
  for (const app of assembly.apis)
    for (const fn of app.functions.values()) {
      const name = nameOf(app, fn.id);
      if (!served.has(name)) served.set(name, { name, fn, app, context: functionContext(app, fn.id) });
    }
  return [...served.values()];
};

/**
 * The served function a user names: by its name, or by its logical id when one function alone has it; undefined when
 * none has, and refused, naming them, when several have.
 */
export const namedFunction = (served: ServedFunction[], name: string): ServedFunction | undefined => {
  const exact = served.find((candidate) => candidate.name === name);
  if (exact) return exact;
  const byId = served.filter(({ fn }) => fn.id === name);
  if (byId.length > 1)
    throw new RunnerError(`${name} is the id of ${byId.map((candidate) => candidate.name).join(' and ')}: name one`);
  return byId[0];
};

/** The functions of the served stacks that no route or authorizer reaches, by name (ServedFunction): not served. */
export const unreachedFunctions = (assembly: LocalAssembly) => {
  const nameOf = functionNames(assembly);
  const served = new Set(servedFunctions(assembly).map(({ name }) => name));
  const unreached = assembly.apis.flatMap((app) => app.unreachedFunctions.map((id) => nameOf(app, id)));
  return [...new Set(unreached)].filter((name) => !served.has(name));
};

/** The user pools of the stacks of `apis`, once each. */
export const userPoolsOf = (apis: LocalApp[]) => [
  ...new Map(apis.flatMap(({ userPools }) => userPools.map((pool) => [pool.poolId, pool] as const))).values(),
];

/**
 * The template of the one stack in `cloudAssemblyDir` (or of `stackName`), its one REST API (or `apiName`, by logical
 * id), read into a LocalApp.
 */
export const readLocalApp = (cloudAssemblyDir: string, options: ReadOptions = {}): LocalApp =>
  readApp(cloudAssemblyDir, assemblyOf(cloudAssemblyDir), options);

/** readLocalApp, of an assembly already read (`assembly`: its stacks and exports, read once). */
const readApp = (
  cloudAssemblyDir: string,
  assembly: ReturnType<typeof assemblyOf>,
  { stackName, apiName, layerDirs = {} }: ReadOptions,
): LocalApp => {
  const { name, resources, tables, exports } = stackOf(assembly, cloudAssemblyDir, stackName);
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
  const shared = {
    stackName: name,
    apiId,
    otherApiIds,
    userPools: readUserPools(resources),
    tables,
    resources,
    exports,
  };

  const { functionOf, imported } = functionFinder(shared);
  /** The functions `reached` names, each read from its own stack (`imported`: another's), and this stack's others. */
  const readReached = (reached: string[]) => {
    const own = readFunctions(
      resources,
      cloudAssemblyDir,
      new Set(reached.filter((id) => !imported.has(id))),
      layerDirs,
    );
    const functions = new Map(own.functions);
    for (const [id, stack] of imported)
      for (const fn of readFunctions(stack.resources, cloudAssemblyDir, new Set([id]), layerDirs).functions.values())
        functions.set(fn.id, fn);
    return { functions, unreached: own.unreached, functionStacks: imported };
  };

  if (httpApis.includes(apiId)) {
    const httpApi = readHttpApi(resources, apiId, functionOf);
    const { functions, unreached, functionStacks } = readReached([
      ...httpApi.routes.map(({ functionId }) => functionId),
      ...[...httpApi.authorizers.values()].flatMap((authorizer) =>
        authorizer.type === 'REQUEST' ? [authorizer.functionId] : [],
      ),
    ]);
    return {
      ...shared,
      stages: httpApi.stages,
      stageName: httpApi.stageName,
      stageVariables: httpApi.stageVariables,
      deployment: 'local',
      binaryMediaTypes: [],
      routes: [],
      authorizers: new Map(),
      gatewayResponses: new Map(),
      apiKeys: [],
      notices: [],
      httpApi,
      functions,
      functionStacks,
      unreachedFunctions: unreached,
    };
  }

  const apiResource = resources[apiId] as CfnResource;
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
  const [stage] = stages as [LocalStage, ...LocalStage[]];

  const authorizers = readAuthorizers(resources, apiId, functionOf);
  const routes = readRoutes(resources, apiId, functionOf, authorizers);
  const { keys, notices } = readApiKeys(resources, apiId, name);
  const { functions, unreached, functionStacks } = readReached([
    ...routes.flatMap((route) => (route.integration === 'proxy' ? [route.functionId] : [])),
    ...[...authorizers.values()].flatMap((authorizer) => ('functionId' in authorizer ? [authorizer.functionId] : [])),
  ]);
  return {
    ...shared,
    stages,
    stageName: stage.name,
    stageVariables: stage.variables,
    deployment: stage.deployment,
    binaryMediaTypes,
    routes,
    authorizers,
    gatewayResponses: readGatewayResponses(resources, apiId),
    apiKeys: keys,
    notices,
    httpApi: undefined,
    functions,
    functionStacks,
    unreachedFunctions: unreached,
  };
};
