// Reads a synthesized cloud assembly (cdk.out) into what the runner serves: its manifest and stacks (their templates,
// exports and DynamoDB tables, read by tables.ts), each API of a stack as one Api (api.ts: a REST API read by rest-api.ts, an HTTP API by
// http-api.ts, a WebSocket API by websocket-api.ts, a function URL by function-url.ts), the Lambda functions their
// routes and authorizers reach (functions.ts: their bundled assets), and the user pools of the APIs served. Which of those functions are served, by what name: served-functions.ts. Anything the
// runner cannot reproduce faithfully stops it here, with a message naming the resource.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageCacheName, userFolder } from '../user-folder.ts';
import type { Api, Table } from './api.ts';
import { knownFunctionName } from './aws-function-names.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { reproducedHandlersOf } from './custom-resources.ts';
import { type DeployedTemplate, deployedResources } from './deployed.ts';
import { type FunctionRef, functionRefsOf } from './function-names.ts';
import { readFunctionUrl, urlNotices } from './function-url.ts';
import { type FunctionDefinition, type LayerDirs, type LayerSources, readFunctions } from './functions.ts';
import { type FunctionOfUri, readHttpApi } from './http-api.ts';
import { iamNotice } from './iam-notice.ts';
import {
  type ExportedValue,
  type NestedOutputs,
  resolveValue,
  type TemplateSections,
  UnresolvableValueError,
  type ValueContext,
} from './intrinsics.ts';
import { localAws } from './local-aws.ts';
import { givenParameters, nestedTemplateOf } from './nested-stacks.ts';
import { readRestApi } from './rest-api.ts';
import { generatedNestedStackName } from './return-values.ts';
import { type ServiceSeeds, serviceSeedsOf } from './service-resources.ts';
import { globalTableNotices, tablesOf } from './tables.ts';
import { functionTargets } from './uri-target.ts';
import { missingPublicGrants } from './url-permissions.ts';
import { readUserPools } from './user-pools.ts';
import { readWebSocketApi, webSocketNotices } from './websocket-api.ts';

interface CfnTemplate extends DeployedTemplate {
  Outputs?: Record<string, { Value?: unknown; Export?: { Name?: unknown } }>;
}

interface AssemblyStack {
  name: string;
  /** Its region (regionOf; a nested stack's, its parent's): the one whose replica of a global table is served. */
  region: string;
  resources: Record<string, CfnResource>;
  /** Its tables, its Refs' and the local database's. */
  tables: Table[];
  /** Its parameters, conditions and mappings, which its values are evaluated with. */
  template: TemplateSections;
  /** A nested stack's: the top-level stack it belongs to, served with it. */
  root?: string;
  /** A nested stack's: its parent's path and its logical id there (`Shop/OrdersNestedStack...`), as messages name it. */
  path?: string;
}

/**
 * A stack's region: its manifest's `environment` (`aws://<account>/<region>`), else (an environment-agnostic stack,
 * `unknown-region`) the local region, which `AWS::Region` is locally.
 */
const regionOf = (environment: string | undefined) => {
  const region = environment?.split('/')[3];
  return region === undefined || region === '' || region === 'unknown-region' ? localAws.region : region;
};

/** What reading the stacks shares: the assembly's folder, and the exports of the stacks read so far. */
interface StackReading {
  cloudAssemblyDir: string;
  exports: Map<string, ExportedValue>;
  /** The top-level stack's region, its nested stacks' too (CloudFormation creates them in its region). */
  region: string;
}

/** The exports of `template`, each resolved in its stack (`context`), added to `exports`. */
const addExports = (template: CfnTemplate, context: ValueContext) => {
  for (const output of Object.values(template.Outputs ?? {})) {
    if (output.Export?.Name === undefined) continue;
    try {
      context.exports.set(resolveValue(output.Export.Name, context), { value: output.Value, stack: context });
    } catch (error) {
      // A name with no local value: nothing can import it locally (the import says it finds no such export).
      if (!(error instanceof UnresolvableValueError)) throw error;
    }
  }
};

/**
 * The stack `name` of `template`, then its nested stacks and theirs (nested-stacks.ts), each a stack of its own as
 * CloudFormation deploys it: given its parameters by its parent's resource (evaluated in the parent), its Outputs
 * read by its parent's `Fn::GetAtt [<id>, Outputs.<name>]` (intrinsics.ts). `nesting`: a nested stack's.
 */
const stacksOf = (
  template: CfnTemplate,
  name: string,
  reading: StackReading,
  nesting?: { given: Map<string, ExportedValue>; root: string; path: string },
): AssemblyStack[] => {
  const resources = deployedResources(template, name);
  const nested = new Map<string, NestedOutputs>();
  const { Parameters, Conditions, Mappings } = template;
  const sections = { Parameters, Conditions, Mappings, nested, ...(nesting && { given: nesting.given }) };
  const stack = {
    name,
    region: reading.region,
    resources,
    tables: tablesOf(resources, reading.region),
    template: sections,
    ...(nesting && { root: nesting.root, path: nesting.path }),
  };
  const context: ValueContext = {
    stackName: name,
    tables: stack.tables,
    resources,
    exports: reading.exports,
    template: sections,
  };
  addExports(template, context);
  const descendants = ofType(resources, 'AWS::CloudFormation::Stack').flatMap(([id, resource]) => {
    const child = nestedTemplateOf(reading.cloudAssemblyDir, name, id, resource) as CfnTemplate;
    const given = givenParameters(name, id, resource).map(([key, value]) => [key, { value, stack: context }] as const);
    const read = stacksOf(child, generatedNestedStackName(name, id), reading, {
      given: new Map(given),
      root: nesting?.root ?? name,
      path: `${nesting?.path ?? name}/${id}`,
    });
    const [own] = read as [AssemblyStack];
    nested.set(id, {
      outputs: child.Outputs ?? {},
      stack: {
        stackName: own.name,
        tables: own.tables,
        resources: own.resources,
        exports: reading.exports,
        template: own.template,
      },
    });
    return read;
  });
  return [stack, ...descendants];
};

/**
 * Every stack of the cloud assembly in `cloudAssemblyDir`, their nested stacks after each, and what they export (a
 * cross-stack reference of the CDK is an Output's Export in one stack and an Fn::ImportValue in another), each export
 * resolved in its own stack.
 */
const assemblyOf = (cloudAssemblyDir: string) => {
  const manifest = JSON.parse(readFileSync(join(cloudAssemblyDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; environment?: string; properties?: { templateFile?: string } }>;
  };
  const exports = new Map<string, ExportedValue>();
  const stacks = Object.entries(manifest.artifacts ?? {})
    .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
    .flatMap(([name, artifact]) => {
      const template = JSON.parse(
        readFileSync(join(cloudAssemblyDir, artifact.properties?.templateFile ?? `${name}.template.json`), 'utf8'),
      ) as CfnTemplate;
      return stacksOf(template, name, { cloudAssemblyDir, exports, region: regionOf(artifact.environment) });
    });
  return { stacks, exports };
};

/** `stack` and the nested stacks it holds, whose resources are served with it. */
const withNested = (stacks: AssemblyStack[], stack: { name: string }) =>
  stacks.filter(({ name, root }) => name === stack.name || root === stack.name);

/**
 * The chosen stack: the one top-level stack in `cloudAssemblyDir`, or `stackName` (a nested stack's too); with the
 * assembly's exports.
 */
const stackOf = (
  { stacks, exports }: ReturnType<typeof assemblyOf>,
  cloudAssemblyDir: string,
  stackName: string | undefined,
) => {
  const topLevel = stacks.filter(({ root }) => root === undefined);
  const names = topLevel.map(({ name }) => name).join(', ');
  const chosen = stackName === undefined ? topLevel : stacks.filter(({ name }) => name === stackName);
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
  /** The root of the user's cache, where Powertools' public layers are (runtime-sdk.ts); by default the user's. */
  packageCache?: string | undefined;
}

/** The types of what the runner serves, each at an address of its own: REST, HTTP and WebSocket APIs, function URLs. */
const servedTypes = ['AWS::ApiGateway::RestApi', 'AWS::ApiGatewayV2::Api', 'AWS::Lambda::Url'];
const servedTypesShown = servedTypes.join(', ');

const apiIdsOf = (resources: Record<string, CfnResource>) =>
  servedTypes.flatMap((type) => ofType(resources, type)).map(([id]) => id);

/** What the runner serves of a cloud assembly. */
export interface Assembly {
  /** Each API served, read as its own app (readApi), to be served at once, each at its own address. */
  apis: Api[];
  /**
   * Every table of the assembly, whichever stack declares it (another stack's functions may import its name), as
   * they all exist once the app is deployed.
   */
  tables: Table[];
  /** The stacks served with no API (their tables and functions serve). */
  stacksWithoutApi: string[];
  /**
   * The functions of the stacks served that no API reaches (a queue's consumer, a rule's target, a custom resource's
   * handler), each read in its own stack: servable, and run by what reaches them locally or by `invoke`.
   */
  otherFunctions: { fn: FunctionDefinition; context: ValueContext }[];
  /** Those of them that cannot run locally, with the reason (their code, runtime or layers): said at start. */
  unservable: { stackName: string; id: string; reason: string }[];
  /** The handlers of the custom resources the runner reproduces (custom-resources.ts): not served, not said. */
  reproducedHandlers: { stackName: string; id: string; reason: string }[];
  /** What of the assembly applies to the APIs on AWS and not locally, said at start. */
  notices: string[];
  /** Every function of every stack (served or not), as a user may name it (function-names.ts). */
  functions: FunctionRef[];
  /** Every stack's SSM parameters and secrets, which the local services start with (service-resources.ts). */
  seeds: ServiceSeeds;
}

/** Every stack's parameters and secrets, each read in its own stack, whichever stacks are served. */
const seedsOf = ({ stacks, exports }: ReturnType<typeof assemblyOf>) =>
  serviceSeedsOf(
    stacks.map(({ name, tables, resources, template }) => ({ stackName: name, tables, resources, exports, template })),
  );

/** Every function of every stack, with its name as Lambda knows it (one more name a user may give it). */
const functionsOf = ({ stacks, exports }: ReturnType<typeof assemblyOf>) =>
  stacks.flatMap(({ name, tables, resources, template }) => {
    const context = { stackName: name, tables, resources, exports, template };
    return functionRefsOf(name, resources, (id) => knownFunctionName(context, id));
  });

/**
 * What of the assembly no local part serves or applies: a global table's replicas in other regions (tables.ts); a WAF
 * web ACL on an API's stage.
 */
const noticesOf = (stacks: AssemblyStack[]) =>
  stacks.flatMap(({ name, region, resources }) => [
    ...globalTableNotices(name, resources, region),
    ...ofType(resources, 'AWS::WAFv2::WebACLAssociation').map(
      ([id]) =>
        `${name}/${id}: a WAF web ACL association, which the runner does not apply: requests its rules would block (403 on AWS) are served`,
    ),
  ]);

/**
 * What the runner serves of the assembly in `cloudAssemblyDir`: every API of every stack (`stackName`: of that stack;
 * `apiName`: that API alone), each read as `readApi` reads one. The stacks' functions are served by logical id
 * and their tables by name in one account, so two stacks served at once that share a function's id or a table's name
 * are refused, naming them.
 */
export const readAssembly = (cloudAssemblyDir: string, options: ReadOptions = {}): Assembly => {
  const assembly = assemblyOf(cloudAssemblyDir);
  const read = (name: string, id: string) =>
    naming(
      assembly.stacks.find((stack) => stack.name === name),
      () => readApp(cloudAssemblyDir, assembly, { ...options, stackName: name, apiName: id }),
    );
  const { apis, served, tables, stacksWithoutApi } =
    options.stackName !== undefined || assembly.stacks.filter(({ root }) => root === undefined).length <= 1
      ? oneStackRead(assembly, cloudAssemblyDir, options, read)
      : everyStackRead(assembly, cloudAssemblyDir, options.apiName, read);
  return {
    apis,
    tables,
    stacksWithoutApi,
    ...otherFunctionsOf(served, apis, cloudAssemblyDir, assembly.exports, layerSourcesOf(options)),
    notices: [...new Set([...noticesOf(assembly.stacks), ...apis.flatMap(({ notices }) => notices)])],
    functions: functionsOf(assembly),
    seeds: seedsOf(assembly),
  };
};

/** What readAssembly serves of its stacks: their APIs, each read by `read` (its stack's name, its logical id). */
interface StacksRead {
  apis: Api[];
  /** The stacks whose other functions are served. */
  served: AssemblyStack[];
  tables: Table[];
  stacksWithoutApi: string[];
}

/** One stack served (`stackName`, or the assembly's one) with its nested stacks; the others' tables as deployed. */
const oneStackRead = (
  assembly: ReturnType<typeof assemblyOf>,
  cloudAssemblyDir: string,
  { stackName, apiName }: ReadOptions,
  read: (name: string, id: string) => Api,
): StacksRead => {
  const stack = stackOf(assembly, cloudAssemblyDir, stackName);
  const served = withNested(assembly.stacks, stack);
  const found = apisOf(served, apiName);
  // An API it does not have: refused by its reader, naming the stack's APIs.
  const apis =
    apiName !== undefined && found.length === 0
      ? [read(stack.name, apiName)]
      : found.map(([name, id]) => read(name, id));
  // One stack served: the others' tables are there as deployed, one of each name.
  const others = assembly.stacks.filter((other) => !served.includes(other));
  const tables = new Map(
    [...others, ...served].flatMap(({ tables }) => tables.map((table) => [table.tableName, table] as const)),
  );
  return { apis, served, tables: [...tables.values()], stacksWithoutApi: [] };
};

/** Every stack served (`apiName`: the one stack of that API), refusing names two of them share. */
const everyStackRead = (
  { stacks }: ReturnType<typeof assemblyOf>,
  cloudAssemblyDir: string,
  apiName: string | undefined,
  read: (name: string, id: string) => Api,
): StacksRead => {
  const withApis = stacks.filter(({ resources }) =>
    apiIdsOf(resources).some((id) => apiName === undefined || id === apiName),
  );
  const names = stacks.map(({ name }) => name).join(', ');
  if (apiName !== undefined && withApis.length === 0)
    throw new UnsupportedTemplateError(`${cloudAssemblyDir}: none of its stacks (${names}) has an API ${apiName}`);
  if (apiName !== undefined && withApis.length > 1)
    throw new UnsupportedTemplateError(
      `${apiName} is an API of ${withApis.map(({ name }) => name).join(' and ')}: choose one with --stack NAME`,
    );
  const apis = apisOf(withApis, apiName).map(([name, id]) => read(name, id));
  refuseSharedTableNames(stacks);
  refuseSharedPoolIds(withApis);
  return {
    apis,
    // With --api, the stack of that API alone; else every stack, with an API or not.
    served: apiName === undefined ? stacks : withApis,
    tables: stacks.flatMap(({ tables }) => tables),
    stacksWithoutApi: stacks
      .filter(({ root }) => root === undefined)
      .filter((stack) => withNested(stacks, stack).every(({ resources }) => apiIdsOf(resources).length === 0))
      .map(({ name }) => name),
  };
};

/** `read`'s answer; a refusal of what a nested stack declares names that stack (its path) first. */
const naming = <T>(stack: AssemblyStack | undefined, read: () => T): T => {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof UnsupportedTemplateError) || stack?.path === undefined) throw error;
    throw new UnsupportedTemplateError(`the nested stack ${stack.path} (${stack.name}): ${error.message}`);
  }
};

/** The APIs of `stacks` (`apiName`: that one alone), each as its stack's name and its logical id. */
const apisOf = (stacks: AssemblyStack[], apiName: string | undefined) =>
  stacks.flatMap(({ name, resources }) =>
    apiIdsOf(resources)
      .filter((id) => apiName === undefined || id === apiName)
      .map((id) => [name, id] as const),
  );

/** Where the functions' layers are: those `--layer` gives, and the user's cache of Powertools' layers. */
const layerSourcesOf = ({ layerDirs = {}, packageCache }: ReadOptions): LayerSources => ({
  given: layerDirs,
  cache: packageCache ?? userFolder(packageCacheName, { create: false }).path,
});

/**
 * The functions of `stacks` that none of `apis` reaches, each read in its own stack; one that cannot be read (its
 * code not in the assembly, a runtime the runner does not run) is listed with the reason rather than refusing the app,
 * which serves without it.
 */
const otherFunctionsOf = (
  stacks: AssemblyStack[],
  apis: Api[],
  cloudAssemblyDir: string,
  exports: Map<string, ExportedValue>,
  layers: LayerSources,
): Pick<Assembly, 'otherFunctions' | 'unservable' | 'reproducedHandlers'> => {
  const reached = new Set(
    apis.flatMap((app) =>
      [...app.functions.keys()].map((id) => `${(app.functionStacks.get(id) ?? app).stackName}/${id}`),
    ),
  );
  const otherFunctions: Assembly['otherFunctions'] = [];
  const unservable: Assembly['unservable'] = [];
  const reproducedHandlers: Assembly['reproducedHandlers'] = [];
  for (const { name, resources, tables, template } of stacks) {
    const context: ValueContext = { stackName: name, tables, resources, exports, template };
    const handlers = reproducedHandlersOf(resources);
    for (const [id, reason] of handlers) reproducedHandlers.push({ stackName: name, id, reason });
    for (const [id] of ofType(resources, 'AWS::Lambda::Function')) {
      if (reached.has(`${name}/${id}`) || handlers.has(id)) continue;
      try {
        const { functions } = readFunctions(resources, cloudAssemblyDir, new Set([id]), layers);
        for (const fn of functions.values()) otherFunctions.push({ fn, context });
      } catch (error) {
        if (!(error instanceof UnsupportedTemplateError)) throw error;
        unservable.push({ stackName: name, id, reason: error.message });
      }
    }
  }
  return { otherFunctions, unservable, reproducedHandlers };
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

/** The user pools of the stacks of `apis`, once each. */
export const userPoolsOf = (apis: Api[]) => [
  ...new Map(apis.flatMap(({ userPools }) => userPools.map((pool) => [pool.poolId, pool] as const))).values(),
];

/**
 * The template of the one stack in `cloudAssemblyDir` (or of `stackName`), its one REST API (or `apiName`, by logical
 * id), read into an Api.
 */
export const readApi = (cloudAssemblyDir: string, options: ReadOptions = {}): Api =>
  readApp(cloudAssemblyDir, assemblyOf(cloudAssemblyDir), options);

/** The API of `resources` that `apiName` names, or its one API; another API of the stack is refused, naming them. */
const chosenApi = (resources: Record<string, CfnResource>, stackName: string, apiName: string | undefined) => {
  const allIds = apiIdsOf(resources);
  const chosen = apiName === undefined ? allIds : allIds.filter((id) => id === apiName);
  if (apiName !== undefined && chosen.length === 0)
    throw new UnsupportedTemplateError(`${stackName} has no API ${apiName}; its APIs: ${allIds.join(', ') || 'none'}`);
  const [apiId] = chosen;
  if (apiId === undefined) throw new UnsupportedTemplateError(`${stackName}: no API (${servedTypesShown}) to serve`);
  if (chosen.length > 1)
    throw new UnsupportedTemplateError(
      `${stackName} has ${chosen.length} APIs (${allIds.join(', ')}): the runner serves one at a time, choose one with --api ID`,
    );
  return { apiId, otherApiIds: allIds.filter((id) => id !== apiId) };
};

/** What every kind of API has, read from its stack before its kind's reader runs. */
type SharedFields = Pick<
  Api,
  'stackName' | 'apiId' | 'otherApiIds' | 'userPools' | 'tables' | 'resources' | 'exports' | 'template'
>;

/** What a kind's reader is given: the fields every API has, and how to find and read its functions. */
interface ApiReading {
  shared: SharedFields;
  functionOf: FunctionOfUri;
  /** The functions `reached` names, each read from its own stack (another's when imported). */
  readReached: (reached: string[]) => Pick<Api, 'functions' | 'functionStacks'>;
}

/** readReached of ApiReading, for `resources` and the functions of other stacks `imported` (by id). */
const reachedReader =
  (
    resources: Record<string, CfnResource>,
    cloudAssemblyDir: string,
    imported: Map<string, ValueContext>,
    layers: LayerSources,
  ): ApiReading['readReached'] =>
  (reached) => {
    const own = readFunctions(resources, cloudAssemblyDir, new Set(reached.filter((id) => !imported.has(id))), layers);
    const functions = new Map(own.functions);
    for (const [id, stack] of imported)
      for (const fn of readFunctions(stack.resources, cloudAssemblyDir, new Set([id]), layers).functions.values())
        functions.set(fn.id, fn);
    return { functions, functionStacks: imported };
  };

/** A function URL's Api (function-url.ts reads it; url-permissions.ts, what its function's permissions grant). */
const readUrlApp = ({ shared, functionOf, readReached }: ApiReading): Api => {
  const { resources, apiId, stackName: name } = shared;
  const url = readFunctionUrl(resources, apiId, functionOf);
  const { functions, functionStacks } = readReached([url.functionId]);
  const functionStack = functionStacks.get(url.functionId);
  const ungranted =
    url.authType === 'NONE' ? missingPublicGrants([shared, ...(functionStack ? [functionStack] : [])], apiId, url) : [];
  return {
    kind: 'url',
    ...shared,
    ...url,
    ungranted,
    stages: [{ name: '$default', variables: {}, deploymentId: 'local' }],
    notices: urlNotices(name, apiId, url, ungranted),
    functions,
    functionStacks,
  };
};

/** A WebSocket API's Api (websocket-api.ts reads it). */
const readWebSocketApp = ({ shared, functionOf, readReached }: ApiReading): Api => {
  const { resources, apiId, stackName: name } = shared;
  const webSocketApi = readWebSocketApi(resources, apiId, functionOf, shared);
  const { functions, functionStacks } = readReached([
    ...webSocketApi.routes.map(({ functionId }) => functionId),
    ...[...webSocketApi.authorizers.values()].map(({ functionId }) => functionId),
  ]);
  return {
    kind: 'websocket',
    ...shared,
    ...webSocketApi,
    notices: [
      ...webSocketNotices(name, apiId),
      ...iamNotice(
        name,
        apiId,
        webSocketApi.routes.filter(({ iam }) => iam).map(({ routeKey }) => routeKey),
      ),
    ],
    functions,
    functionStacks,
  };
};

/** An HTTP API's Api (http-api.ts reads it). */
const readHttpApp = ({ shared, functionOf, readReached }: ApiReading): Api => {
  const httpApi = readHttpApi(shared.resources, shared.apiId, functionOf, shared);
  const { functions, functionStacks } = readReached([
    ...httpApi.routes.flatMap((route) => (route.service || route.httpProxy ? [] : [route.functionId])),
    ...[...httpApi.authorizers.values()].flatMap((authorizer) =>
      authorizer.type === 'REQUEST' ? [authorizer.functionId] : [],
    ),
  ]);
  return {
    kind: 'http',
    ...shared,
    ...httpApi,
    notices: iamNotice(
      shared.stackName,
      shared.apiId,
      httpApi.routes.filter(({ iam }) => iam).map(({ routeKey }) => routeKey),
    ),
    functions,
    functionStacks,
  };
};

/** A REST API's Api (rest-api.ts reads it). */
const readRestApp = ({ shared, functionOf, readReached }: ApiReading): Api => {
  const restApi = readRestApi(shared.resources, shared.apiId, shared.stackName, functionOf, shared);
  const { functions, functionStacks } = readReached([
    ...restApi.routes.flatMap((route) => (route.integration === 'proxy' ? [route.functionId] : [])),
    ...restApi.routes.flatMap((route) =>
      route.integration === 'integrated' && route.target.kind === 'lambda' ? [route.target.functionId] : [],
    ),
    ...[...restApi.authorizers.values()].flatMap((authorizer) =>
      'functionId' in authorizer ? [authorizer.functionId] : [],
    ),
  ]);
  return {
    kind: 'rest',
    ...shared,
    ...restApi,
    notices: [
      ...restApi.notices,
      ...iamNotice(
        shared.stackName,
        shared.apiId,
        restApi.routes.filter(({ iam }) => iam).map(({ method, resourcePath }) => `${method} ${resourcePath}`),
      ),
    ],
    functions,
    functionStacks,
  };
};

/** Each kind of API's reader. */
const readers: Record<Api['kind'], (reading: ApiReading) => Api> = {
  url: readUrlApp,
  websocket: readWebSocketApp,
  http: readHttpApp,
  rest: readRestApp,
};

/** The kind of the API `apiId`: a function URL, a WebSocket or HTTP API (AWS::ApiGatewayV2::Api), else REST. */
const kindOf = (resources: Record<string, CfnResource>, apiId: string): Api['kind'] => {
  const resource = resources[apiId] as CfnResource;
  if (resource.Type === 'AWS::Lambda::Url') return 'url';
  if (resource.Type !== 'AWS::ApiGatewayV2::Api') return 'rest';
  return props(resource).ProtocolType === 'WEBSOCKET' ? 'websocket' : 'http';
};

/**
 * The stacks `stack` is nested with (its top-level stack and every stack nested in it), as contexts: an API's function
 * may be one of theirs, its ARN read through an output or a parameter.
 */
const nestingOf = (stacks: AssemblyStack[], stack: AssemblyStack & { exports: Map<string, ExportedValue> }) =>
  stacks
    .filter(({ name, root }) => name !== stack.name && (root ?? name) === (stack.root ?? stack.name))
    .map(
      ({ name, tables, resources, template }): ValueContext => ({
        stackName: name,
        tables,
        resources,
        exports: stack.exports,
        template,
      }),
    );

/** readApi, of an assembly already read (`assembly`: its stacks and exports, read once). */
const readApp = (cloudAssemblyDir: string, assembly: ReturnType<typeof assemblyOf>, options: ReadOptions): Api => {
  const { stackName, apiName } = options;
  const stack = stackOf(assembly, cloudAssemblyDir, stackName);
  const { name, resources, tables, exports, template } = stack;
  const { apiId, otherApiIds } = chosenApi(resources, name, apiName);
  const shared = {
    stackName: name,
    apiId,
    otherApiIds,
    userPools: readUserPools(resources),
    tables,
    resources,
    exports,
    template,
  };
  const { functionOf, imported } = functionTargets(shared, nestingOf(assembly.stacks, stack));
  const readReached = reachedReader(resources, cloudAssemblyDir, imported, layerSourcesOf(options));
  return readers[kindOf(resources, apiId)]({ shared, functionOf, readReached });
};
