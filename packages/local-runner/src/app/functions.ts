// Reads the template's Lambda functions into what the runner runs: each function's runtime and code (its bundled
// asset), its layers, its settings, and what it needs that no local part gives (said once at start, never a reason
// to refuse the app). Which functions are read: assembly.ts.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { servedServices } from '../aws/served-services.ts';
import { userFolder } from '../user-folder.ts';
import { type CfnResource, getAttOf, ofType, props, refOf, shown, UnsupportedTemplateError } from './cfn.ts';
import { type TokenIssuerVariables, tokenIssuerMetadataKey } from './metadata.ts';
import { type PowertoolsLayer, powertoolsLayerOf } from './powertools-layers.ts';

/** How an execution environment runs the function's code: by its runtime's language. */
type FunctionCode =
  /** A Node.js runtime (`nodejs*`): the module file in the asset folder and the exported handler's name. */
  | { language: 'nodejs'; modulePath: string; exportName: string }
  /** A Python runtime (`python3.*`): the runtime imports the handler's module itself, as Lambda's does. */
  | { language: 'python' }
  /** An OS-only runtime (`provided.al2023`, `provided.al2`): the asset's `bootstrap` executable is the runtime. */
  | { language: 'provided'; bootstrap: string };

export interface FunctionDefinition {
  id: string;
  /** The template's Runtime, e.g. `nodejs22.x`: which runtime runs it, and which handler styles that runtime takes. */
  runtime: string;
  /** The template's Handler (Lambda's `_HANDLER`), as the runtime reads it. */
  handler: string;
  /** The folder of the bundled code, as `cdk deploy` would upload it (Lambda's /var/task). */
  assetDir: string;
  code: FunctionCode;
  /**
   * The local folders of its layers, in the template's order (Lambda extracts them into /opt in that order, a later
   * layer's files over an earlier one's).
   */
  layerDirs: string[];
  /** Those of its layers that are Powertools' public layers, named by ARN: installed into their folders at start. */
  powertoolsLayers: PowertoolsLayer[];
  timeoutSeconds: number;
  memoryMb: number;
  /** LoggingConfig.LogFormat: how the Lambda runtime writes its own log lines (an invocation's error among them). */
  logFormat: 'JSON' | 'Text';
  /** Its environment variables as the template has them, intrinsics unresolved (see intrinsics.ts). */
  variables: Record<string, unknown>;
  /** The version its code runs as: `1` when the template publishes versions of it (served through an alias). */
  version: string;
  /** Set when the function verifies tokens (its Metadata says which variables): the development issuer's. */
  tokenIssuerVariables: TokenIssuerVariables | undefined;
  /** What it needs that no local part gives: the runner says each once, at start. */
  notices: string[];
}

/**
 * The folder of a function's code or a layer's content in the cloud assembly: the `aws:asset:path` metadata the CDK
 * CLI adds, else, for an app synthesized without the CLI (its metadata off), the folder the CDK stages each file asset
 * in, `asset.<hash>`, for the `<hash>.zip` its S3Key names.
 */
const assetDirOf = (resource: CfnResource, property: 'Code' | 'Content', cloudAssemblyDir: string) => {
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (typeof assetPath === 'string') return join(cloudAssemblyDir, assetPath);
  const key = (props(resource)[property] as { S3Key?: unknown } | undefined)?.S3Key;
  const hash = typeof key === 'string' ? /^([0-9a-f]{64})\.zip$/.exec(key)?.[1] : undefined;
  const staged = hash === undefined ? undefined : join(cloudAssemblyDir, `asset.${hash}`);
  return staged !== undefined && existsSync(staged) ? staged : undefined;
};

/**
 * The folder of a function whose code the template holds inline (`Code.ZipFile`, the CDK's `Code.fromInline`): as
 * CloudFormation "places it in a file named index" (AWS::Lambda::Function Code, ZipFile: `index.js` for Node.js,
 * `index.py` for Python). In a folder of the system's temporary one that is this user's alone (mode 0700, checked: the
 * runner runs what it holds), one subfolder per content, its file rewritten unless it holds exactly the code.
 */
const inlineCodeDir = (properties: Record<string, unknown>, runtime: string, id: string) => {
  const code = (properties.Code as { ZipFile?: unknown } | undefined)?.ZipFile;
  const extension = runtime.startsWith('nodejs') ? '.js' : runtime.startsWith('python') ? '.py' : undefined;
  if (typeof code !== 'string' || extension === undefined) return undefined;
  const { path: root, problem } = userFolder('local-runner-inline-code');
  if (problem !== undefined)
    throw new UnsupportedTemplateError(`${id}: its inline code would run from ${root}, which is ${problem}`);
  const dir = join(root, createHash('sha256').update(extension).update(code).digest('hex'));
  const file = join(dir, `index${extension}`);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== code) {
    mkdirSync(dir, { recursive: true });
    // Written whole, then renamed into place: a runner stopped halfway leaves no half file to run.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  return dir;
};

/** Where the layers the template names only by ARN are locally (`--layer ARN=DIR`). */
export type LayerDirs = Record<string, string>;

/**
 * Lambda's handler setting `file.export`: the module file in the asset folder, looked for as the runtime does (`.js`,
 * then `.mjs`, then `.cjs`: UserFunction.js in aws/aws-lambda-nodejs-runtime-interface-client), and the export's name.
 * A module that is not there is the runtime's init error, not a refusal.
 */
const nodeModule = (assetDir: string, handler: string, id: string): FunctionCode => {
  const dot = handler.lastIndexOf('.');
  const [file, exportName] = [handler.slice(0, dot), handler.slice(dot + 1)];
  if (dot < 1) throw new UnsupportedTemplateError(`${id}: handler ${handler} names no module (file.export)`);
  // None there: the deploy would succeed, and each init fail to find it (Runtime.ImportModuleError), here too.
  const modulePath =
    ['.js', '.mjs', '.cjs'].map((extension) => join(assetDir, `${file}${extension}`)).find(existsSync) ??
    join(assetDir, `${file}.js`);
  return { language: 'nodejs', modulePath, exportName };
};

/** The instruction set an ELF executable is built for (its header's e_machine), or undefined for anything else. */
const elfMachine = (file: string): string | undefined => {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const machine = header.readUInt16LE(18);
  return machine === 0x3e ? 'x64' : machine === 0xb7 ? 'arm64' : `ELF machine 0x${machine.toString(16)}`;
};

/**
 * An OS-only runtime's code: Lambda starts the asset's `bootstrap` ("Building a custom runtime for AWS Lambda"). A
 * script runs on any machine that has its interpreter; a Linux executable only on Linux, on the architecture it was
 * built for: anything else is refused here, naming what the machine is.
 */
const bootstrapOf = (assetDir: string, architecture: string, id: string): FunctionCode => {
  const bootstrap = join(assetDir, 'bootstrap');
  if (!existsSync(bootstrap))
    throw new UnsupportedTemplateError(`${id}: an OS-only runtime's code needs a bootstrap file; ${assetDir} has none`);
  const machine = elfMachine(bootstrap);
  const expected = architecture === 'arm64' ? 'arm64' : 'x64';
  if (machine !== undefined && (process.platform !== 'linux' || machine !== process.arch))
    throw new UnsupportedTemplateError(
      `${id}: its bootstrap is a Linux executable for ${machine} (the function's architecture: ${architecture}); this machine is ${process.platform} on ${process.arch}, which cannot run it`,
    );
  if (machine !== undefined && machine !== expected)
    throw new UnsupportedTemplateError(
      `${id}: its bootstrap is built for ${machine}, but the function's architecture is ${architecture}: Lambda could not run it`,
    );
  return { language: 'provided', bootstrap };
};

const codeOf = (runtime: string, assetDir: string, handler: string, architecture: string, id: string) => {
  if (runtime.startsWith('nodejs')) return nodeModule(assetDir, handler, id);
  if (runtime.startsWith('python3')) return { language: 'python' } as const;
  if (runtime.startsWith('provided')) return bootstrapOf(assetDir, architecture, id);
  throw new UnsupportedTemplateError(
    `${id}: runtime ${runtime} is not run locally (the runner runs Node.js, Python and OS-only runtimes: nodejs*, python3.*, provided*)`,
  );
};

/** The layers a function names by ARN, and where they are locally: `given` (`--layer`), `cache` (Powertools'). */
export interface LayerSources {
  given: LayerDirs;
  /** The root of the user's cache, where Powertools' public layers are installed (runtime-sdk.ts). */
  cache: string;
}

/**
 * Its layers' local folders: a LayerVersion of the template by its asset, one named by ARN by `--layer`, else, for
 * Powertools' public layers, their folder in the cache (`powertools`: installed at start). A layer named by an ARN (a
 * string) that neither gives refuses the app, naming the function and the layer: locally nothing of it can be
 * fetched, and the function would fail at its first request saying only that a module is missing. Any other layer
 * value that is neither is a notice.
 */
const layersOf = (
  id: string,
  properties: Record<string, unknown>,
  resources: Record<string, CfnResource>,
  cloudAssemblyDir: string,
  { given, cache }: LayerSources,
  { notices, powertools }: { notices: string[]; powertools: PowertoolsLayer[] },
) => {
  const layers = Array.isArray(properties.Layers) ? (properties.Layers as unknown[]) : [];
  const give = (arn: string) =>
    `give its contents with --layer ${arn}=DIR (DIR holding what Lambda extracts into /opt)`;
  return layers.flatMap((layer) => {
    const ref = refOf(layer);
    const resource = ref === undefined ? undefined : resources[ref];
    const assetDir =
      resource?.Type === 'AWS::Lambda::LayerVersion' ? assetDirOf(resource, 'Content', cloudAssemblyDir) : undefined;
    if (assetDir !== undefined) return [assetDir];
    const name = shown(layer);
    const dir = given[name];
    if (dir !== undefined) return [dir];
    if (typeof layer === 'string') {
      const known = powertoolsLayerOf(layer, cache);
      if (known !== undefined && !('refused' in known)) {
        powertools.push(known);
        return [known.dir];
      }
      throw new UnsupportedTemplateError(
        known === undefined
          ? `${id}: its layer ${layer} is named by ARN, not a layer of this app, and cannot be fetched locally: ${give(layer)}`
          : `${id}: its layer ${layer} cannot be fetched locally: ${known.refused}: ${give(layer)}`,
      );
    }
    notices.push(`its layer ${name} is not an asset of this app, so nothing of it is here: ${give('ARN')}`);
    return [];
  });
};

/** What the function's settings ask of AWS that no local part gives, said once at start. */
const settingNotices = (properties: Record<string, unknown>) => [
  ...(properties.VpcConfig === undefined
    ? []
    : ['it runs in a VPC (VpcConfig) on AWS: locally it reaches what this machine reaches, not the VPC']),
  ...((properties.FileSystemConfigs as { LocalMountPath?: unknown }[] | undefined) ?? []).map(
    ({ LocalMountPath: path }) =>
      `it mounts an EFS file system at ${shown(path)} on AWS: nothing is mounted there locally, so what it reads or writes there fails`,
  ),
  // "Configuring reserved concurrency" (https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
  ...(properties.ReservedConcurrentExecutions === undefined
    ? []
    : [
        `its ReservedConcurrentExecutions (${shown(properties.ReservedConcurrentExecutions)}) caps its concurrent invocations on AWS and throttles the rest (0: every one): locally it is not enforced, --max-workers limits its environments`,
      ]),
];

/**
 * The services (IAM's prefixes) whose calls do not fail locally: those served (aws/served-services.ts: some of their
 * operations, docs/services.md), CloudWatch Logs and X-Ray (the runtime's calls).
 */
const servedPrefixes = [...servedServices.map(({ prefix }) => prefix), 'logs', 'xray'];

/**
 * Services besides those served that the function's role lets it call (its role's inline policies and the
 * AWS::IAM::Policy resources attached to it, by the service prefix of each allowed action), and CloudWatch Logs and
 * X-Ray, whose calls the runtime makes, not the function, and a WebSocket API's @connections. Locally those calls fail at once (NotServedLocally:
 * aws/unserved-services.ts); said at start, since the template shows them.
 */
const unservedServicesOf = (properties: Record<string, unknown>, resources: Record<string, CfnResource>) => {
  const roleId = getAttOf(properties.Role)?.[0];
  if (roleId === undefined) return [];
  const documents = [
    ...((props(resources[roleId] ?? { Type: '' }).Policies as { PolicyDocument?: unknown }[] | undefined) ?? []).map(
      ({ PolicyDocument: document }) => document,
    ),
    ...ofType(resources, 'AWS::IAM::Policy')
      .filter(([, policy]) =>
        ((props(policy).Roles as unknown[] | undefined) ?? []).some((role) => refOf(role) === roleId),
      )
      .map(([, policy]) => props(policy).PolicyDocument),
  ];
  // A WebSocket API's @connections (execute-api:ManageConnections) is served with the API (gateway/websocket/).
  const servesConnections = ofType(resources, 'AWS::ApiGatewayV2::Api').some(
    ([, api]) => props(api).ProtocolType === 'WEBSOCKET',
  );
  const services = new Set<string>();
  for (const document of documents) {
    const statements =
      (document as { Statement?: { Effect?: string; Action?: unknown }[] } | undefined)?.Statement ?? [];
    for (const { Effect: effect, Action: action } of statements) {
      if (effect !== 'Allow') continue;
      for (const name of [action].flat()) {
        if (servesConnections && typeof name === 'string' && name.toLowerCase() === 'execute-api:manageconnections')
          continue;
        const service = typeof name === 'string' ? name.split(':')[0] : undefined;
        if (service && !servedPrefixes.includes(service)) services.add(service);
      }
    }
  }
  return services.size === 0
    ? []
    : [
        `its role lets it call ${[...services].join(', ')}, which the runner does not serve: locally those calls fail at once (NotServedLocally), unless --env-vars points AWS_ENDPOINT_URL elsewhere`,
      ];
};

/** The functions of `resources` that `reached` names, read. */
export const readFunctions = (
  resources: Record<string, CfnResource>,
  cloudAssemblyDir: string,
  reached: Set<string>,
  layers: LayerSources,
) => {
  const functions = new Map<string, FunctionDefinition>();
  for (const [id, resource] of ofType(resources, 'AWS::Lambda::Function')) {
    if (!reached.has(id)) continue;
    const properties = props(resource);
    const runtime = shown(properties.Runtime ?? '');
    const assetDir = assetDirOf(resource, 'Code', cloudAssemblyDir) ?? inlineCodeDir(properties, runtime, id);
    if (assetDir === undefined) {
      throw new UnsupportedTemplateError(
        `${id}: its code is not an asset of the cloud assembly (no aws:asset:path metadata, no asset folder for its S3Key) nor inline (Code.ZipFile)`,
      );
    }
    const handler = String(properties.Handler ?? 'index.handler');
    const [architecture = 'x86_64'] = (properties.Architectures as string[] | undefined) ?? [];
    const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const notices = [...settingNotices(properties), ...unservedServicesOf(properties, resources)];
    const powertoolsLayers: PowertoolsLayer[] = [];
    functions.set(id, {
      id,
      runtime,
      handler,
      assetDir,
      code: codeOf(runtime, assetDir, handler, architecture, id),
      layerDirs: layersOf(id, properties, resources, cloudAssemblyDir, layers, {
        notices,
        powertools: powertoolsLayers,
      }),
      powertoolsLayers,
      timeoutSeconds: Number(properties.Timeout ?? 3),
      memoryMb: Number(properties.MemorySize ?? 128),
      logFormat:
        (properties.LoggingConfig as { LogFormat?: string } | undefined)?.LogFormat === 'JSON' ? 'JSON' : 'Text',
      variables,
      // A published version (AWS::Lambda::Version) is what an alias serves on AWS: locally, its first.
      version: ofType(resources, 'AWS::Lambda::Version').some(
        ([, version]) => refOf(props(version).FunctionName) === id,
      )
        ? '1'
        : '$LATEST',
      tokenIssuerVariables: tokenIssuerVariablesOf(resource.Metadata?.[tokenIssuerMetadataKey], id),
      notices,
    });
  }
  return { functions };
};

const tokenIssuerVariablesOf = (value: unknown, id: string): TokenIssuerVariables | undefined => {
  if (value === undefined) return undefined;
  const { issuer, audience, jwksUri, routeScopes } = (value ?? {}) as Partial<Record<string, unknown>>;
  const names = [issuer, audience, jwksUri];
  if (!names.every((name) => typeof name === 'string') || !['string', 'undefined'].includes(typeof routeScopes)) {
    throw new UnsupportedTemplateError(`${id}: ${tokenIssuerMetadataKey} metadata must name issuer, audience, jwksUri`);
  }
  return value as TokenIssuerVariables;
};
