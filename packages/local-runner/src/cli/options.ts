// The local commands' options, each declared once with its help; each command's usage is generated from them. A
// command that fails on a user's mistake (a RunnerError) prints its message; anything else is a bug: its stack.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type AppProject, appProjectAt, ensureSynthesized, isUpToDate } from '../app/cloud-assembly.ts';
import { bundlesWithoutSourceMaps } from '../app/source-maps.ts';
import { RunnerError } from '../errors.ts';
import { configFileName, type RunnerConfig } from './config.ts';

interface OptionDeclaration {
  type: 'string' | 'boolean';
  short?: string;
  /** Taken any number of times. */
  multiple?: boolean;
  /** What the value is called in the usage (`--port N`). */
  placeholder?: string;
  default?: string;
  help: string;
}

export const options = {
  port: {
    type: 'string',
    placeholder: 'N',
    help: "the first API's port on 127.0.0.1 (default: $PORT or 3000; 0 picks free ones); each API keeps its own from one start to the next (the data folder's ports.json)",
  },
  'data-dir': {
    type: 'string',
    placeholder: 'DIR',
    help: `the data folder: the database and the issuer key (default: ${configFileName}'s dataDir, or .local-runner)`,
  },
  'in-memory': { type: 'boolean', help: 'keep nothing on disk' },
  'max-workers': {
    type: 'string',
    placeholder: 'N',
    default: '4',
    help: 'execution environments per function at most (at least 1, at most 4 per core)',
  },
  'idle-timeout': {
    type: 'string',
    placeholder: 'SECONDS',
    default: '600',
    help: 'an execution environment idle this long is stopped, as Lambda stops idle ones (AWS publishes no figure; 10 minutes is what was observed: docs: functions); its next request is a cold start again, taking a spare runtime process kept ready',
  },
  'async-retry-delay': {
    type: 'string',
    placeholder: 'SECONDS',
    default: '60',
    help: "how long an asynchronous invocation that failed waits for its first retry; the second waits twice as long (Lambda's: about one minute, then two: docs: functions)",
  },
  'skip-waits': {
    type: 'boolean',
    help: "state machines' Wait states and Retry intervals pass at once (docs: step-functions)",
  },
  'env-vars': {
    type: 'string',
    placeholder: 'FILE',
    help: '{"<function>": {"NAME": "value"}, "Parameters": {...every function\'s}} replacing template values (as sam local takes it); a function by logical id, construct path or construct id',
  },
  'service-values': {
    type: 'string',
    placeholder: 'FILE',
    help: '{"Parameters": {"<name>": "value"}, "Secrets": {"<name>": "value"}}: SSM parameters and secrets over and beside the template\'s (docs: configuration)',
  },
  event: {
    type: 'string',
    short: 'e',
    placeholder: 'FILE',
    help: 'the event, a JSON file (as `sam local invoke -e`); - reads it from standard input (default: {})',
  },
  app: {
    type: 'string',
    placeholder: 'DIR',
    help: "a cloud assembly synthesized already (`cdk synth -o DIR`, as `cdk deploy --app DIR`), served instead of this project's app",
  },
  context: {
    type: 'string',
    short: 'c',
    multiple: true,
    placeholder: 'NAME=VALUE',
    help: "a context value for the synth, over cdk.json's (as `cdk synth -c NAME=VALUE`); any number of them",
  },
  stack: { type: 'string', placeholder: 'NAME', help: "that stack's APIs alone (default: every stack's)" },
  api: { type: 'string', placeholder: 'ID', help: 'that API or function URL (its logical id) alone (default: each)' },
  'runtime-sdk': {
    type: 'string',
    placeholder: 'DIR',
    help: "a node_modules folder standing for the AWS SDK Lambda's Node.js runtimes provide, looked in first (default: the app's, else the runner's cache)",
  },
  layer: {
    type: 'string',
    multiple: true,
    placeholder: 'ARN=DIR',
    help: 'a folder holding what Lambda extracts into /opt for a layer the app names by ARN; any number of them',
  },
  'allowed-host': {
    type: 'string',
    multiple: true,
    placeholder: 'HOST',
    help: 'a host name the API answers besides localhost, *.localhost, 127.0.0.1 and [::1] (.NAME: NAME and its subdomains); any number of them',
  },
  watch: {
    type: 'boolean',
    help: "synthesize and serve again when the app's sources change (the start command's --watch)",
  },
  inspect: {
    type: 'string',
    placeholder: '[=FUNCTION]',
    help: "debug that Node.js function (logical id, construct path or construct id; by default every one) with Node's inspector (docs: debugging)",
  },
  'inspect-port': {
    type: 'string',
    placeholder: 'N',
    default: '9229',
    help: "the first debugged function's inspector port, or the next free one; the next functions' follow it (0: each a free one)",
  },
  pool: {
    type: 'string',
    placeholder: 'ID',
    help: "a token of that Cognito user pool (its logical id), which the app's user pool authorizers take",
  },
  issuer: {
    type: 'string',
    placeholder: 'URL',
    help: "a token of that issuer (an HTTP API's JWT authorizer's), with --audience; signed by the development issuer",
  },
  audience: { type: 'string', placeholder: 'AUDIENCE', help: 'with --issuer: its `aud`' },
  'token-use': {
    type: 'string',
    placeholder: 'id|access',
    default: 'id',
    help: 'with --pool: an ID token (methods without scopes take it) or an access token (methods with scopes)',
  },
  sub: { type: 'string', placeholder: 'SUBJECT', default: 'local-developer', help: "the token's subject" },
  scope: {
    type: 'string',
    placeholder: 'SCOPES',
    help: 'space-separated scopes (default: the scope the API requires)',
  },
  'expires-in': {
    type: 'string',
    placeholder: 'TIME',
    default: '1h',
    help: 'seconds, or a span such as 30m or 12h',
  },
  body: {
    type: 'string',
    placeholder: 'TEXT',
    help: "the event's body: a message, a bus event's detail (JSON), an object's or a record's data",
  },
  name: {
    type: 'string',
    placeholder: 'NAME',
    help: 'the name of the queue, topic, rule, bucket, table or stream the event comes from',
  },
  key: { type: 'string', placeholder: 'KEY', help: "an object's key, an item's id, a record's partition key" },
  json: { type: 'boolean', help: 'print the variables as one JSON object, not as export lines' },
  help: { type: 'boolean', short: 'h', help: 'print this and exit' },
} as const satisfies Record<string, OptionDeclaration>;

type OptionName = keyof typeof options;

/** `synopsis`, then a line for each option: its flag and placeholder, its help and its default. */
export const usageOf = (synopsis: string, names: readonly OptionName[]) => {
  const lines = names.map((name) => {
    const option: OptionDeclaration = options[name];
    const flag = `--${name}${option.placeholder?.startsWith('[') ? option.placeholder : option.placeholder ? ` ${option.placeholder}` : ''}`;
    return [flag, `${option.help}${option.default === undefined ? '' : ` (default ${option.default})`}`] as const;
  });
  const width = Math.max(...lines.map(([flag]) => flag.length)) + 2;
  return [synopsis, ...lines.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`)].join('\n');
};

/**
 * The command line, for a command taking the options `names` (and `help`): `--help` prints the usage and exits 0; an
 * unknown or malformed option prints what is wrong and the usage, and exits 2.
 */
export const parseCommandLine = <Name extends OptionName>(
  synopsis: string,
  names: readonly Name[],
  { positionals = false } = {},
) => {
  const usage = usageOf(synopsis, [...names, 'help']);
  const config = Object.fromEntries(
    [...names, 'help' as const].map((name) => {
      const { type, short, multiple, default: value }: OptionDeclaration = options[name];
      return [
        name,
        {
          type,
          ...(short && { short }),
          ...(multiple && { multiple }),
          ...(value !== undefined && { default: value }),
        },
      ];
    }),
  ) as {
    [K in Name | 'help']: Pick<
      (typeof options)[K],
      Extract<keyof (typeof options)[K], 'type' | 'short' | 'multiple' | 'default'>
    >;
  };
  try {
    // `--inspect` takes its function optionally, as node's own --inspect[=HOST:PORT] does; parseArgs' string options
    // always take a value, so alone it is given the empty one: every function.
    const args = process.argv.slice(2).map((arg) => (arg === '--inspect' && 'inspect' in config ? '--inspect=' : arg));
    const parsed = parseArgs({ args, options: config, allowPositionals: positionals, strict: true });
    if ((parsed.values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return { ...parsed, usage };
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exit(2);
  }
};

/** How a command ends on an error: a user's mistake prints `<command> failed: <message>`, a bug its stack. */
export const commandFailed = (command: string, error: unknown) => {
  const told = error instanceof RunnerError ? error.message : error instanceof Error ? error.stack : String(error);
  console.error(`${command} failed: ${told}`);
  process.exitCode = 1;
};

/** An option's `NAME=VALUE` values (`--context`, `--layer`), each name once. */
const pairsOf = (option: 'context' | 'layer', values: string[] = []) => {
  const pairs: Record<string, string> = {};
  for (const value of values) {
    const [, name, given] = /^([^=]+)=(.*)$/s.exec(value) ?? [];
    if (name === undefined || given === undefined)
      throw new RunnerError(`--${option} ${value}: expected ${options[option].placeholder}`);
    if (name in pairs) throw new RunnerError(`--${option} ${name} is given twice`);
    pairs[name] = given;
  }
  return pairs;
};

/** `--runtime-sdk DIR`: the folder, resolved from the working folder, which must exist. */
export const runtimeSdkOf = (values: { 'runtime-sdk'?: string | undefined }) => {
  const dir = values['runtime-sdk'];
  if (dir === undefined) return undefined;
  if (!existsSync(dir)) throw new RunnerError(`--runtime-sdk ${dir}: no such folder`);
  return resolve(dir);
};

/** `--inspect[=FUNCTION]`: the function to debug (undefined: every Node.js function), when given. */
export const inspectOf = (values: { inspect?: string | undefined; 'inspect-port'?: string | undefined }) =>
  values.inspect === undefined
    ? undefined
    : {
        functionId: values.inspect || undefined,
        firstPort: wholeNumber(values['inspect-port'] ?? '9229', '--inspect-port'),
      };

/** `--layer ARN=DIR`: each layer's folder, resolved from the working folder, which must exist. */
export const layerDirsOf = (values: { layer?: string[] | undefined }) =>
  Object.fromEntries(
    Object.entries(pairsOf('layer', values.layer)).map(([arn, dir]) => {
      if (!existsSync(dir)) throw new RunnerError(`--layer ${arn}=${dir}: no such folder`);
      return [arn, resolve(dir)];
    }),
  );

/** The CDK project the command runs in, with the context values `--context` gives its synth. */
/**
 * The context value a synth for debugging (`--inspect`) is given, `true`: an app may then bundle its functions for a
 * debugger (unminified, with source maps), as the README's "Debugging" says.
 */
export const inspectContextKey = 'local-runner:inspect';

/** The project in `root`, with the context values given (and inspectContextKey's, when debugging). */
export const projectOf = (
  values: { context?: string[] | undefined; inspect?: string | undefined },
  root = process.cwd(),
): AppProject => {
  const project = appProjectAt(root);
  const context = {
    ...(values.inspect !== undefined && { [inspectContextKey]: 'true' }),
    ...pairsOf('context', values.context),
  };
  return Object.keys(context).length === 0 ? project : { ...project, context };
};

/**
 * Debugging (`project` is `undebugged` with inspectContextKey) an assembly synthesized without it and up to date: its
 * folder when its Node.js bundles carry source maps, as a debugger needs, so that `--inspect` needs no synth; else
 * undefined, saying why a synth is needed.
 */
const inspectedAsItIs = (undebugged: AppProject, project: AppProject, log: (line: string) => void) => {
  const cloudAssemblyDir = join(project.root, 'cdk.out');
  if (!isUpToDate(cloudAssemblyDir, undebugged) || isUpToDate(cloudAssemblyDir, project)) return undefined;
  const without = bundlesWithoutSourceMaps(cloudAssemblyDir);
  if (without.length === 0) {
    log('cdk.out is up to date, and its bundles carry source maps: --inspect needs no synth');
    return cloudAssemblyDir;
  }
  log(
    `--inspect synthesizes (with ${inspectContextKey}=true): ${without.join(', ')} carry no source map, which a debugger needs to map breakpoints to the sources (docs: debugging)`,
  );
  return undefined;
};

/**
 * The cloud assembly to serve: `--app DIR` as it is, else the project's app (synthesized unless up to date). `inputs`:
 * files the command reads (an event, --env-vars), which are never sources, though a `**` in cdk.json's watch names them.
 * `env`: the synth's environment.
 */
export const cloudAssemblyOf = (
  values: { app?: string | undefined; context?: string[] | undefined; inspect?: string | undefined },
  log: (line: string) => void,
  inputs: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
) => {
  const { app } = values;
  if (app === undefined) {
    const inProject = (project: AppProject) => ({
      ...project,
      exclude: [
        ...project.exclude,
        ...inputs.map((file) => relative(project.root, resolve(file))).filter((path) => !path.startsWith('..')),
      ],
    });
    const project = inProject(projectOf(values));
    const undebugged =
      values.inspect === undefined ? undefined : inProject(projectOf({ ...values, inspect: undefined }));
    return (undebugged && inspectedAsItIs(undebugged, project, log)) ?? ensureSynthesized(project, log, env);
  }
  if (values.context !== undefined)
    throw new RunnerError(`--app ${app} was synthesized already: its context is its own`);
  const dir = resolve(app);
  if (!existsSync(resolve(dir, 'manifest.json'))) {
    throw new RunnerError(`--app ${app}: no manifest.json there; synthesize one with \`cdk synth -o ${app}\``);
  }
  return dir;
};

/** The data folder (`--data-dir`, else the configuration's), or undefined with --in-memory. */
export const dataDirOf = (values: { 'data-dir'?: string; 'in-memory'?: boolean }, config: RunnerConfig) =>
  values['in-memory'] === true ? undefined : resolve(values['data-dir'] ?? config.dataDir);

/**
 * `--env-vars file.json`: `{ "<function id>": { "NAME": "value" } }`, and `"Parameters"` for every function, as `sam
 * local --env-vars` takes it (runner.ts, givenVariables).
 */
export const envVarsOf = (file: string | undefined): Record<string, Record<string, string>> | undefined => {
  if (file === undefined) return undefined;
  const format = 'expected { "<function id>": { "NAME": "value", ... } }';
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RunnerError(
      `${file}: ${error instanceof SyntaxError ? 'not JSON' : (error as Error).message}; ${format}`,
    );
  }
  const isPlainObject = (value: unknown): value is object =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const valid =
    isPlainObject(parsed) &&
    Object.values(parsed).every(
      (variables) => isPlainObject(variables) && Object.values(variables).every((value) => typeof value === 'string'),
    );
  if (!valid) throw new RunnerError(`${file}: ${format}`);
  return parsed as Record<string, Record<string, string>>;
};

export const wholeNumber = (value: string | undefined, name: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw new RunnerError(`${name} must be a whole number, not ${String(value)}`);
  return parsed;
};

/**
 * The most execution environments per function this machine can hold: 4 per core (each initializes on a core; more
 * only queue there, until initializations time out) and one per 256 MiB of half the memory.
 */
export const workerCap = () =>
  Math.max(1, Math.min(4 * availableParallelism(), Math.floor(totalmem() / 2 / (256 * 1024 * 1024))));

/** `--max-workers`: a whole number of at least 1, capped at `workerCap()`; says when it was capped. */
export const maxWorkersOf = (value: string | undefined, log: (line: string) => void): number => {
  const wanted = wholeNumber(value, '--max-workers');
  if (wanted < 1) throw new RunnerError('--max-workers must be at least 1');
  const cap = workerCap();
  if (wanted <= cap) return wanted;
  log(`--max-workers ${wanted} is more than this machine can hold; using ${cap} (4 per core)`);
  return cap;
};

/** `--idle-timeout`: whole seconds, at least 1, as milliseconds. */
export const idleTimeoutOf = (value: string | undefined): number => {
  const seconds = wholeNumber(value, '--idle-timeout');
  if (seconds < 1) throw new RunnerError('--idle-timeout must be at least 1 second');
  return seconds * 1000;
};
