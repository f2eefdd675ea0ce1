// How an execution environment's runtime starts: what each runtime's bootstrap runs on Lambda, with the paths Lambda
// sets for the function's layers (extracted into /opt there; locally each layer's own folder).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionDefinition } from '../app/functions.ts';
import { RunnerError } from '../errors.ts';

/**
 * Where a Node.js function's runtime finds the SDK besides its bundle and the project (runtime-sdk.ts); where a Python
 * function's finds boto3 (python-sdk.ts).
 */
export interface SdkFolders {
  /** A Python function's: the cache's boto3 folder, when neither its code, its layers nor the machine has boto3. */
  boto3?: string[];
  /** `--runtime-sdk DIR`, before anywhere else. */
  given?: string | undefined;
  /** The folders its sources came from. */
  sources: string[];
  /** The cache's node_modules folder. */
  cache?: string | undefined;
}

/** A Node.js function debugged: its inspector's port, and whether its runtime waits for a debugger before it starts. */
export interface Inspect {
  port: number;
  wait: boolean;
}

/** What runtime.mjs is started with: its command line's one argument, as JSON (the rest it reads as Lambda's runtime does, from its environment). */
interface NodeRuntimeSettings {
  modulePath: string;
  exportName: string;
  /** The layers' folders: what the function may import besides its bundle and the runtime's SDK. */
  layerDirs: string[];
  /** Where the runtime's SDK is (`--runtime-sdk`), before anywhere else. */
  runtimeSdk: string | undefined;
  /** The folders the function's sources came from (runtime-sdk.ts): after its bundle, before the project. */
  sdkSources: string[];
  /** The user's cache's node_modules folder for the runtime's SDK: after the project. */
  sdkCache: string | undefined;
  /**
   * The @connections endpoint of each WebSocket API served: its execute-api host name (lower case) to its loopback
   * address, where runtime.mjs sends the function's node:https requests to that host.
   */
  executeApi: Record<string, string>;
}

const nodeRuntime = new URL('./runtime.mjs', import.meta.url).pathname;
const pythonRuntime = new URL('./runtime.py', import.meta.url).pathname;

/**
 * The command line the Lambda Node.js runtime's bootstrap starts node with (/var/runtime/bootstrap in the Lambda base
 * images, aws/aws-lambda-base-images): the heap sized from the function's memory (a tenth for the young generation,
 * half of that a semi-space, the rest the old generation), `gc()` exposed, and 80 KiB headers. A function's own
 * NODE_OPTIONS come from its environment, as there; flags on the command line win over NODE_OPTIONS' (Node's rule).
 */
const nodeFlags = (memoryMb: number) => {
  const newSpaceMb = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size=81920',
    `--max-semi-space-size=${Math.floor(newSpaceMb / 2)}`,
    `--max-old-space-size=${memoryMb - newSpaceMb}`,
  ];
};

/** Paths under each layer's folder, the last layer's first: on Lambda its files overwrite an earlier layer's in /opt. */
const underLayers = (fn: FunctionDefinition, ...paths: string[]) =>
  paths.flatMap((path) => fn.layerDirs.toReversed().map((dir) => join(dir, path)));

/**
 * The bootstrap's NODE_PATH when the function sets none, as the Node.js bootstrap sets it
 * (`/opt/nodejs/node24/node_modules:/opt/nodejs/node_modules:/var/runtime/node_modules:/var/runtime:/var/task`):
 * the layers' folders, then the task root. The runtime's own folder (/var/runtime) and its SDK have no local
 * counterpart here: runtime.mjs resolves the SDK where runtime-sdk.ts says.
 */
const nodePath = (fn: FunctionDefinition) => {
  const major = /^nodejs(\d+)/.exec(fn.runtime)?.[1] ?? '';
  return [...underLayers(fn, `nodejs/node${major}/node_modules`, 'nodejs/node_modules'), fn.assetDir].join(':');
};

/**
 * The layers' Python folders, as Lambda's Python runtimes search /opt ("Layer paths for each Lambda runtime":
 * `python/lib/python3.x/site-packages`, then `python`); the runtime puts the task root before them.
 */
export const pythonLayerFolders = (fn: FunctionDefinition) =>
  underLayers(fn, `python/lib/${fn.runtime.replace(/\.x$/, '')}/site-packages`, 'python');

/**
 * The command, arguments and environment that start `fn`'s runtime, from the variables the runner gives it (and, for
 * a Node.js function, its inspector when debugged and the folders of the runtime's SDK).
 * Layers' `bin` folders join PATH as Lambda's /opt/bin does ("Layer paths for each Lambda runtime" in the Lambda
 * guide), after the machine's own.
 */
export const bootstrapOf = (
  fn: FunctionDefinition,
  variables: Record<string, string>,
  {
    inspect,
    runtimeSdk,
    executeApi = {},
  }: { inspect?: Inspect | undefined; runtimeSdk?: SdkFolders | undefined; executeApi?: Record<string, string> } = {},
) => {
  const path = [variables.PATH, ...underLayers(fn, 'bin')].filter(Boolean).join(':');
  const env = { ...variables, PATH: path };
  switch (fn.code.language) {
    case 'nodejs': {
      const { modulePath, exportName } = fn.code;
      const settings: NodeRuntimeSettings = {
        modulePath,
        exportName,
        layerDirs: fn.layerDirs,
        runtimeSdk: runtimeSdk?.given,
        sdkSources: runtimeSdk?.sources ?? [],
        sdkCache: runtimeSdk?.cache,
        executeApi,
      };
      return {
        command: process.execPath,
        args: [
          ...nodeFlags(fn.memoryMb),
          // Debugged: Node's inspector, on loopback alone (anyone who reaches it can run code in the function).
          ...(inspect === undefined ? [] : [`--inspect${inspect.wait ? '-wait' : ''}=127.0.0.1:${inspect.port}`]),
          nodeRuntime,
          JSON.stringify(settings),
        ],
        variables: { NODE_PATH: nodePath(fn), ...env },
      };
    }
    case 'python':
      return {
        command: 'python3',
        args: [pythonRuntime, JSON.stringify({ executeApi })],
        // The runtime's boto3 from the user's cache, where neither the function nor the machine has it: after the
        // layers, as Lambda's SDK comes after the code and the layers (python-sdk.ts).
        variables: { ...env, PYTHONPATH: [...pythonLayerFolders(fn), ...(runtimeSdk?.boto3 ?? [])].join(':') },
      };
    case 'provided':
      return { command: fn.code.bootstrap, args: [], variables: env };
  }
};

/** This machine's `python3` version (`3.11`), asked once; undefined when it has none. */
let pythonVersion: { version: string | undefined } | undefined;
const machinePython = () => {
  if (!pythonVersion) {
    const asked = spawnSync('python3', ['--version'], { encoding: 'utf8' });
    pythonVersion = { version: /Python (\d+\.\d+)/.exec(`${asked.stdout}${asked.stderr}`)?.[1] };
  }
  return pythonVersion.version;
};

/**
 * Where this machine runs `fn` on another version of its language than Lambda's runtime would (the runner's Node.js,
 * the machine's `python3`): a line for its runtime, said once at start, naming the functions (runner.ts). A Python function on a machine without `python3` is refused, and any
 * function whose runtime file this installation lacks.
 */
export const machineNotices = (fn: FunctionDefinition): string[] => {
  // A package built or packed without the runtimes' files (package.json's `files`) would start, and answer every
  // request to the function 502: refused at start instead, naming the file.
  const runtimeFile = { nodejs: nodeRuntime, python: pythonRuntime, provided: undefined }[fn.code.language];
  if (runtimeFile !== undefined && !existsSync(runtimeFile))
    throw new RunnerError(
      `${fn.id}: this installation of the runner lacks ${runtimeFile}, the runtime its ${fn.runtime} functions run in: install cdk-local-runner again`,
    );
  const wanted = /^(?:nodejs|python)(\d+(?:\.\d+)?)/.exec(fn.runtime)?.[1];
  if (fn.code.language === 'nodejs') {
    const here = process.versions.node.split('.')[0];
    return wanted === undefined || wanted === here
      ? []
      : [
          `${fn.runtime} functions run on the runner's Node.js ${here}, not ${wanted} (with ${fn.runtime}'s handler styles)`,
        ];
  }
  if (fn.code.language !== 'python') return [];
  const here = machinePython();
  if (here === undefined)
    throw new RunnerError(`${fn.id}: runtime ${fn.runtime} needs python3 on this machine's PATH, and none answers`);
  return wanted === here ? [] : [`${fn.runtime} functions run on this machine's Python ${here}, not ${wanted}`];
};
