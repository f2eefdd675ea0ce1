// The runtime of one execution environment: a process of its own (started by pool.ts as the Lambda Node.js runtime's
// bootstrap starts it), which loads one function's bundle once, then answers invocations one at a time through
// Lambda's Runtime API (runtime-api.ts serves it; AWS_LAMBDA_RUNTIME_API names it), as every Lambda runtime does: it
// asks for the next invocation, and posts its response or error, or the initialization's error. Plain JavaScript, so
// that starting it costs what starting Lambda's runtime does: Node strips a .ts file's types with a WebAssembly
// compiler it loads on first use, some 140 ms a process here. Its settings are typed in bootstrap.ts (NodeRuntimeSettings);
// the rest it reads from its environment, as Lambda's runtime does.
import { closeSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import Module, { createRequire, registerHooks } from 'node:module';
import { connect } from 'node:net';
import { dirname, join, posix } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

// A spare (spares.ts: `--spare` for its settings), started before any function needed it, with nothing of one loaded:
// it waits here until a cold start hands it the function's environment, then goes on as a runtime started for the
// function would: the function's variables exactly (none of the spare's own), its folder, its settings. NODE_PATH,
// which Node's CommonJS loader reads as it starts, is read again (Module._initPaths, undocumented). The variables
// Node reads only as it starts (NODE_OPTIONS, TZ, the locale's) are the spare's own start's, the same as the function's.
if (process.argv[2] === '--spare') {
  // Ready: the runner's start waits for it (spares.ts); nothing of the function's has it.
  closeSync(3);
  const given = readFileSync(0, 'utf8');
  // Its input closed with nothing: the runner is gone, or stopped it.
  if (given === '') process.exit(0);
  const { env, cwd, settings } = JSON.parse(given);
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  process.chdir(cwd);
  process.argv[2] = settings;
  Module._initPaths();
}

const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API ?? '';
const [host, port] = runtimeApi.split(':');
if (!host || !port)
  throw new Error('lambda/runtime.mjs is a Lambda runtime: AWS_LAMBDA_RUNTIME_API names its Runtime API');

// HTTP/1.1 by hand, over one kept-alive connection, one call at a time (but for an invocation's response and the next
// poll, sent together in one write: pipelined, answered in turn): node:http would add some 25 ms to every cold
// start (its import, measured here), which Lambda's own runtime client, a native one, does not pay. The Runtime API
// (runtime-api.ts) answers each call with a Content-Length body. The connection is unref'd between calls, so it keeps
// nothing alive: the empty event loop a callback's result waits for is the function's own. The connection gone means
// the runner is gone (even by SIGKILL): the environment ends, never outliving the runner that started it.
const connection = connect(Number(port), host);
connection.setNoDelay(true);
connection.unref();
connection.on('error', () => process.exit(0));
connection.on('close', () => process.exit(0));
let received = Buffer.alloc(0);
/** The calls sent and not yet answered, oldest first: HTTP/1.1 answers come in the order of the requests. */
const awaiting = [];
/** The oldest answer `received` holds whole, taken out of it; undefined until one is. */
const takeAnswer = () => {
  const headerEnd = received.indexOf('\r\n\r\n');
  if (headerEnd < 0) return undefined;
  const [statusLine, ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const end = headerEnd + 4 + Number(headers['content-length'] ?? 0);
  if (received.length < end) return undefined;
  const body = received.subarray(headerEnd + 4, end).toString('utf8');
  received = received.subarray(end);
  return { status: Number(statusLine.split(' ')[1]), headers, body };
};
connection.on('data', (chunk) => {
  received = Buffer.concat([received, chunk]);
  for (let answer = awaiting.length > 0 ? takeAnswer() : undefined; answer; ) {
    const resolve = awaiting.shift();
    if (awaiting.length === 0) connection.unref();
    resolve(answer);
    answer = awaiting.length > 0 ? takeAnswer() : undefined;
  }
});

/** A call's request, as sent. */
const request = (method, path, body = '', headers = {}) => {
  const head = Object.entries({ Host: runtimeApi, 'Content-Length': Buffer.byteLength(body), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `${method} /2018-06-01/runtime${path} HTTP/1.1\r\n${head}\r\n${body}`;
};

/** Sends `text` (one request or more, in one write) and resolves with the answers to its `count` requests. */
const send = (text, count) => {
  const answers = Array.from({ length: count }, () => new Promise((resolve) => awaiting.push(resolve)));
  connection.ref();
  connection.write(text);
  return answers;
};

/** A call to the Runtime API: resolves with the answer's status, headers and body. */
const call = (method, path, body = '', headers = {}) => send(request(method, path, body, headers), 1)[0];

/** The next invocation's poll (GET /invocation/next): resolves with its answer. */
const poll = () => call('GET', '/invocation/next');

/** The standard Lambda error body (the Runtime API's ErrorRequest), and its type in the header Lambda reads too. */
const postError = (path, error) => {
  const { errorType, message } = reported(error);
  const stackTrace = error instanceof Error && typeof error.stack === 'string' ? error.stack.split('\n') : [];
  return call('POST', path, JSON.stringify({ errorMessage: message, errorType, stackTrace }), {
    'Content-Type': 'application/vnd.aws.lambda.error+json',
    'Lambda-Runtime-Function-Error-Type': errorType,
  });
};

// Only the runner ends an environment, as only Lambda does there: pool.ts starts each in a process group of its own,
// out of reach of a terminal's Ctrl-C, and a signal sent to it anyway leaves it serving.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

/**
 * A folder or file by its real path, as Node names the modules it resolves (it follows symbolic links): an assembly
 * reached through a link (`--app /link/cdk.out`; on macOS, /tmp and /var/folders are links to /private/...) is the
 * same folder as the real path of each module it loads.
 */
const real = (path) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};
const settings = JSON.parse(process.argv[2]);
const { exportName, runtimeSdk, sdkSources, sdkCache } = settings;
const modulePath = real(settings.modulePath);
const layerDirs = settings.layerDirs.map(real);
const functionId = process.env.AWS_LAMBDA_FUNCTION_NAME;
const runtime = process.env.AWS_EXECUTION_ENV?.replace(/^AWS_Lambda_/, '') ?? '';
const memoryMb = process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
const logFormat = process.env.AWS_LAMBDA_LOG_FORMAT === 'JSON' ? 'JSON' : 'Text';

/**
 * Up to nodejs22.x, Lambda's runtime takes a handler that answers through a callback or the context's succeed, fail
 * and done (aws/aws-lambda-nodejs-runtime-interface-client 3.x: Runtime.js, CallbackContext.js); from nodejs24.x its
 * runtime refuses, at init, a handler that declares a third parameter (the client's CallbackHandlerDeprecatedError and
 * its message, quoted below). `nodejs` alone, the oldest, names no version.
 */
const nodeMajor = Number(/^nodejs(\d+)/.exec(runtime)?.[1] ?? 0);
const takesCallbacks = nodeMajor <= 22;
const callbackHandlerRefused =
  'ERROR: AWS Lambda has removed support for callback-based function handlers starting with Node.js 24. You need to modify this function to use a supported handler signature to use Node.js 24 or later. For more information see https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html.';

/**
 * What runs once the event loop is empty: Node's `beforeExit`, where Lambda's runtime finishes an invocation whose
 * callback result waits for it (callbackWaitsForEmptyEventLoop), or which neither answered nor settled (its
 * BeforeExitListener.js: one listener at a time, each invocation's replacing the last). Between calls to the Runtime
 * API nothing of the runtime's keeps the loop alive (its idle connection is unref'd), so the loop empties when the
 * function's own work is done: a function that leaves a socket or a timer open waits, here as on Lambda, until its
 * timeout.
 */
let onEmptyLoop = () => undefined;
process.on('beforeExit', () => {
  const run = onEmptyLoop;
  onEmptyLoop = () => undefined;
  run();
});
const whenEventLoopEmpty = (then) => {
  onEmptyLoop = then;
};

/**
 * The line the Lambda Node.js runtime writes itself when a handler throws or rejects ("Invoke Error") or its module
 * fails to load ("Init Error"), in the function's log format, as its LogPatch.js writes it
 * (aws/aws-lambda-nodejs-runtime-interface-client): in JSON, a line at level ERROR whose message is the error as
 * errorType, errorMessage and stackTrace. Metric filters over the log group see it as they see the function's own lines.
 */
const logError = (label, error, requestId) => {
  const timestamp = new Date().toISOString();
  const stack = typeof error.stack === 'string' ? error.stack.split('\n') : [];
  if (logFormat === 'JSON') {
    const message = { errorType: error.constructor.name, errorMessage: error.message, stackTrace: stack };
    console.error(JSON.stringify({ timestamp, level: 'ERROR', requestId, message }));
  } else {
    const formatted = JSON.stringify({ errorType: error.name, errorMessage: error.message, stack });
    console.error(`${timestamp}\t${requestId}\tERROR\t${label} \t${formatted}`);
  }
};

/** An error as the runtime reports it: an Error by its name and message; anything else by its type and text. */
const reported = (error) =>
  error instanceof Error
    ? { errorType: error.name, message: error.message }
    : { errorType: typeof error, message: String(error) };

/** The bundle's folder: /var/task on Lambda, where nothing lies above it. */
const taskRoot = real(process.env.LAMBDA_TASK_ROOT ?? dirname(modulePath));

/** The function's folder `file` is in, its bundle's or a layer's (/var/task or /opt on Lambda), if any. */
const functionsFolder = (file) => [taskRoot, ...layerDirs].find((dir) => file.startsWith(`${dir}/`));

/**
 * Whether a `.js` file of the function is an ES module as Lambda's runtime decides it (UserFunction.js,
 * `_hasFolderPackageJsonTypeModule`): by the nearest package.json's `type`, never past a node_modules folder, and here
 * never past the function's folder either: on Lambda nothing lies above /var/task (or /opt), while locally the bundle
 * sits in the user's project, whose own package.json (`"type": "module"`) does not reach it there.
 */
const isModuleScope = (file) => {
  const root = functionsFolder(file);
  for (let dir = dirname(file); !dir.endsWith('/node_modules'); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
    if (root === undefined || dir === root || !dir.startsWith(`${root}/`)) return false;
  }
  return false;
};

// Node decides a .js file's format by its nearest package.json, wherever it is, and neither its module hooks nor a
// require() can tell its CommonJS loader otherwise for a file in a `"type": "module"` scope (a hook's format is not
// used: ERR_REQUIRE_CYCLE_MODULE). So the loader's `.js` handler (Module._extensions, a documentation-only deprecation,
// DEP0039) compiles the bundle's .js files in CommonJS scope as CommonJS, as Lambda loads them.
const loadJs = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) {
  if (functionsFolder(filename) !== undefined && !isModuleScope(filename))
    return module._compile(readFileSync(filename, 'utf8'), filename, 'commonjs');
  return loadJs.call(this, module, filename);
};

const nodeJsExitMessage =
  'The Lambda runtime client detected an unexpected Node.js exit code. This is most commonly caused by a Promise that was never settled. For more information, see https://nodejs.org/docs/latest/api/process.html#exit-codes';
const runtimeError = (name, message) => Object.assign(new Error(message), { name });

/** The SDK Lambda's Node.js runtime provides (the Lambda guide's "Runtime-included SDK versions"): v3 from nodejs18.x. */
const providedSdk = nodeMajor >= 18 ? /^@aws-sdk\// : /^aws-sdk$/;
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * NODE_PATH's folders of packages (bootstrap.ts sets it as Lambda's bootstrap does: the layers' node_modules), where
 * Lambda's runtime lets an ES module find packages too from nodejs18.x (Node's own ESM resolution ignores NODE_PATH):
 * "Lambda supports JavaScript ES module dependencies [in layers] for Node.js 18" (AWS Knowledge Center,
 * lambda-import-module-error-nodejs).
 */
const packageFolders =
  nodeMajor >= 18 ? (process.env.NODE_PATH ?? '').split(':').filter((dir) => dir.endsWith('/node_modules')) : [];

/** The path an absolute specifier names (a path or a file: URL), its `.` and `..` segments resolved; else undefined. */
const absolutePath = (specifier) => {
  if (specifier.startsWith('/')) return posix.normalize(specifier);
  if (!specifier.startsWith('file:')) return undefined;
  try {
    // The URL parser has resolved its dot segments, `%2e%2e` among them.
    return fileURLToPath(specifier);
  } catch {
    return undefined;
  }
};

/**
 * A file under /opt, where Lambda extracts the function's layers, named by its absolute path (`import
 * '/opt/nodejs/utils.mjs'`): locally, the file at that path in the last layer that has it (a later layer's files
 * overwrite an earlier one's in /opt). Undefined when none has it: the import then fails, as on Lambda. The path is
 * taken with its `..` resolved first, as Lambda's file system takes it: `/opt/../manifest.json` is `/manifest.json`,
 * in no layer (and not the folder above a layer's, locally the cloud assembly).
 */
const inLayers = (specifier) => {
  const path = absolutePath(specifier);
  if (path !== '/opt' && !path?.startsWith('/opt/')) return undefined;
  return layerDirs
    .toReversed()
    .map((dir) => join(dir, path.slice('/opt'.length)))
    .find((file) => existsSync(file));
};

/**
 * `specifier` resolved from folder `dir` (a node_modules folder, or a folder of the user's sources: a module in it
 * finds its packages), or undefined. A require() is resolved there by a require of that folder: Node's default step
 * for a require() resolves from the module that requires, whatever parentURL the context is given.
 */
const fromFolder = (dir, specifier, context, nextResolve) => {
  const parent = join(dir, 'index.js');
  try {
    if (context.conditions?.includes('require'))
      return { url: pathToFileURL(createRequire(parent).resolve(specifier)).href, shortCircuit: true };
    return nextResolve(specifier, { ...context, parentURL: pathToFileURL(parent).href });
  } catch {
    return undefined;
  }
};

/**
 * The runtime's SDK, found where runtime-sdk.ts looks for it: the folder named for it (--runtime-sdk), the bundle, the
 * folders the function's sources came from (its source map's), the project (above the bundle), then the user's cache,
 * where the runner installed what none of them has. Undefined when none has it.
 */
const sdkResolved = (specifier, context, nextResolve) => {
  const given = runtimeSdk && fromFolder(runtimeSdk, specifier, context, nextResolve);
  if (given) return given;
  let own;
  try {
    own = nextResolve(specifier, context);
  } catch {
    own = undefined;
  }
  if (own?.url.startsWith('file:') && functionsFolder(fileURLToPath(own.url)) !== undefined) return own;
  for (const dir of sdkSources) {
    const found = fromFolder(dir, specifier, context, nextResolve);
    if (found) return found;
  }
  return own ?? (sdkCache ? fromFolder(sdkCache, specifier, context, nextResolve) : undefined);
};

/**
 * SDK v2 reads no AWS_ENDPOINT_URL variables: its clients are pointed at the runner's local endpoints as the SDK loads,
 * by the global configuration's service-specific settings (the SDK v2 developer guide's "Using the Global
 * Configuration Object", https://docs.aws.amazon.com/sdk-for-javascript/v2/developer-guide/global-config-object.html,
 * "Setting Configuration Per Service", and "Class: AWS.Config" in its API reference: `AWS.config.<service identifier>`,
 * which each client created afterwards takes over the global settings); each AWS_ENDPOINT_URL_<SERVICE>
 * names its service's identifier (DYNAMODB dynamodb, SECRETS_MANAGER secretsmanager), AWS_ENDPOINT_URL every other
 * service's (the global `endpoint`). Where v2's identifiers are not the variable's ("Identifiers for
 * service-specific endpoints", https://docs.aws.amazon.com/sdkref/latest/guide/ss-endpoints-table.html, names Step
 * Functions SFN and EventBridge EVENTBRIDGE; v2's classes are AWS.StepFunctions and, besides AWS.EventBridge, the
 * older AWS.CloudWatchEvents on the same endpoint), `v2Identifiers` names them.
 */
const v2Identifiers = new Map([
  ['sfn', ['stepfunctions']],
  ['eventbridge', ['eventbridge', 'cloudwatchevents']],
]);
let v2Configured = false;
const pointV2AtLocalEndpoints = (file) => {
  const at = file.lastIndexOf('/node_modules/aws-sdk/');
  if (v2Configured || at < 0) return;
  v2Configured = true;
  // lib/node_loader.js sets AWS.config (every client module of the package loads it, and shares its AWS).
  const AWS = createRequire(import.meta.url)(join(file.slice(0, at), 'node_modules/aws-sdk/lib/node_loader.js'));
  for (const [variable, endpoint] of Object.entries(process.env)) {
    if (variable === 'AWS_ENDPOINT_URL') AWS.config.update({ endpoint });
    const service = /^AWS_ENDPOINT_URL_(\w+)$/.exec(variable)?.[1];
    const id = service?.replaceAll('_', '').toLowerCase();
    // S3's clients address a bucket by host unless told otherwise, which no loopback address can serve (docs/s3.md).
    for (const name of v2Identifiers.get(id) ?? (id ? [id] : []))
      AWS.config[name] = { endpoint, ...(name === 's3' && { s3ForcePathStyle: true }) };
  }
};

// What the function imports resolves as on Lambda, where nothing lies above /var/task: within the bundle or its
// layers, or the SDK the runtime provides (from wherever the user has it: the app's own node_modules). Locally a
// bundle in cdk.out would otherwise find any package the user's project has installed, and work here while failing
// deployed.
registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL?.startsWith('file:') ? fileURLToPath(context.parentURL) : '';
    if (functionsFolder(parent) === undefined) return nextResolve(specifier, context);
    const layerFile = inLayers(specifier);
    const name = packageName(specifier);
    const bare = !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.includes(':');
    const sdk = bare && providedSdk.test(name);
    let resolved;
    try {
      resolved = sdk ? sdkResolved(specifier, context, nextResolve) : undefined;
      resolved ??= nextResolve(layerFile ?? specifier, context);
    } catch (error) {
      const fromLayer =
        bare && context.conditions?.includes('import')
          ? packageFolders
              .map((dir) => {
                try {
                  return nextResolve(specifier, {
                    ...context,
                    parentURL: pathToFileURL(join(dir, '..', 'index.mjs')).href,
                  });
                } catch {
                  return undefined;
                }
              })
              .find(Boolean)
          : undefined;
      if (fromLayer) return fromLayer;
      if (!sdk) throw error;
      error.message = `${error.message}\n${name} is part of the AWS SDK that Lambda's ${runtime} runtime provides; locally it comes from ${runtimeSdk ?? "the app's own node_modules, its sources' folders, or the runner's cache (installed at start, said in the runner's log)"}: install it there (npm install --save-dev ${name})${runtimeSdk ? '' : ', or name a node_modules folder that has it with --runtime-sdk DIR'}`;
      throw error;
    }
    if (sdk && name === 'aws-sdk' && resolved.url.startsWith('file:'))
      pointV2AtLocalEndpoints(fileURLToPath(resolved.url));
    if (!resolved.url.startsWith('file:') || sdk) return resolved;
    const file = fileURLToPath(resolved.url);
    if (functionsFolder(file) !== undefined) return resolved;
    throw Object.assign(
      new Error(
        `Cannot find ${bare ? 'package' : 'module'} '${specifier}' imported from ${parent}: it is not in the function's bundle or layers, and on Lambda nothing else is there (locally it was found at ${file}, outside them)`,
      ),
      { code: context.conditions?.includes('require') ? 'MODULE_NOT_FOUND' : 'ERR_MODULE_NOT_FOUND' },
    );
  },
});

/**
 * The `awslambda` global Lambda's Node.js runtime gives a function (aws/aws-lambda-nodejs-runtime-interface-client,
 * src/UserFunction.js and src/stream/http-response-stream.ts): `streamifyResponse(handler)` marks the handler as a
 * streaming one (the symbol below, which other libraries set and read too), so that it is called as
 * `handler(event, responseStream, context)` and its response is streamed; `HttpResponseStream.from(stream, prelude)`
 * makes the stream's content type `application/vnd.awslambda.http-integration-response` and writes, before its first
 * chunk, the prelude as JSON (statusCode, headers, cookies) and 8 NUL bytes: what a function URL or API Gateway reads
 * the response's status and headers from.
 */
const streamingMark = Symbol.for('aws.lambda.runtime.handler.streaming');
const preludeContentType = 'application/vnd.awslambda.http-integration-response';
globalThis.awslambda = {
  streamifyResponse: (handler) => Object.assign(handler, { [streamingMark]: 'response' }),
  HttpResponseStream: {
    from: (stream, prelude) => {
      stream.setContentType(preludeContentType);
      stream._onBeforeFirstWrite = (write) => {
        write(JSON.stringify(prelude));
        write(new Uint8Array(8));
      };
      return stream;
    },
  },
};

/**
 * The @connections endpoints of the WebSocket APIs the runner serves (bootstrap.ts, NodeRuntimeSettings): a request
 * with node:https (the AWS SDK's HTTP handler's) to `{api-id}.execute-api.{region}.amazonaws.com`, the domain name the
 * events carry and CDK's `callbackUrl` names, goes over plain HTTP to the API's address on loopback instead: on
 * Lambda, that name is the API's. Loaded only when the app has a WebSocket API, so other functions' cold starts pay
 * nothing for it.
 */
const executeApi = settings.executeApi ?? {};
if (Object.keys(executeApi).length > 0) {
  const { default: https } = await import('node:https');
  const { default: http } = await import('node:http');
  const { syncBuiltinESMExports } = await import('node:module');
  const sendHttps = https.request;
  https.request = function request(...args) {
    const [first, second] = args;
    const fromUrl = typeof first === 'string' || first instanceof URL ? new URL(first) : undefined;
    const options = fromUrl
      ? {
          hostname: fromUrl.hostname,
          port: fromUrl.port,
          path: `${fromUrl.pathname}${fromUrl.search}`,
          ...(typeof second === 'object' ? second : {}),
        }
      : first;
    const host = String(options?.hostname ?? options?.host ?? '')
      .toLowerCase()
      .replace(/:\d+$/, '');
    const target = Object.hasOwn(executeApi, host) ? new URL(executeApi[host]) : undefined;
    if (!target) return sendHttps.apply(this, args);
    const headers = Object.fromEntries(
      Object.entries(options.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'host'),
    );
    const { agent: _agent, ...rest } = options;
    return http.request(
      { ...rest, protocol: 'http:', host: target.hostname, hostname: target.hostname, port: target.port, headers },
      args.find((arg) => typeof arg === 'function'),
    );
  };
  syncBuiltinESMExports();
}

let handler;
let streams = false;
try {
  // As the runtime loads it: a .cjs file, or a .js one in CommonJS scope, by require(); the rest by import().
  const required = modulePath.endsWith('.cjs') || (modulePath.endsWith('.js') && !isModuleScope(modulePath));
  const module = required ? createRequire(modulePath)(modulePath) : await import(pathToFileURL(modulePath).href);
  handler = module[exportName];
  if (typeof handler !== 'function') throw new Error(`${modulePath} exports no function ${exportName}`);
  streams = Boolean(handler[streamingMark]);
  // A streaming handler's third parameter is the context, no callback.
  if (!takesCallbacks && !streams && handler.length >= 3)
    throw runtimeError('Runtime.CallbackHandlerDeprecated', callbackHandlerRefused);
} catch (thrown) {
  // As the runtime reports a module it cannot load (UserFunction.js): a syntax error as Runtime.UserCodeSyntaxError, a
  // CommonJS module not found as Runtime.ImportModuleError, each with the original error as its message.
  const wrapped =
    thrown instanceof SyntaxError
      ? 'Runtime.UserCodeSyntaxError'
      : thrown?.code === 'MODULE_NOT_FOUND'
        ? 'Runtime.ImportModuleError'
        : undefined;
  const error = wrapped ? runtimeError(wrapped, String(thrown)) : thrown;
  logError('Init Error', error instanceof Error ? error : new Error(String(error)), undefined);
  // The runtime reports the failed init and ends, as Lambda's does; the next request starts a new environment.
  await postError('/init/error', error);
  process.exit(1);
}

/**
 * The callback, and the context's succeed, fail and done, as the runtime builds them (CallbackContext.js): the first
 * call of any of them is the outcome; the callback's result waits for the event loop to empty while
 * callbackWaitsForEmptyEventLoop is true; `fail()` with nothing fails as `handled`.
 */
const callbackStyle = (finish) => {
  let called = false;
  const once =
    (fn) =>
    (...args) => {
      if (called) return;
      called = true;
      fn(...args);
    };
  let waitForEmptyEventLoop = true;
  const done = (error, result) => finish(error !== undefined && error !== null ? { error } : { result });
  return {
    callback: once((error, result) => {
      if (error !== undefined && error !== null) finish({ error });
      else if (!waitForEmptyEventLoop) finish({ result });
      else whenEventLoopEmpty(() => finish({ result }));
    }),
    legacy: {
      get callbackWaitsForEmptyEventLoop() {
        return waitForEmptyEventLoop;
      },
      set callbackWaitsForEmptyEventLoop(value) {
        waitForEmptyEventLoop = value;
      },
      succeed: once((result) => done(null, result)),
      fail: once((error) => done(error ?? 'handled', null)),
      done: once(done),
    },
  };
};

/**
 * The response stream of a streaming handler: the Runtime API's streaming response ("Using the Lambda runtime API for
 * custom runtimes": `Lambda-Runtime-Function-Response-Mode: streaming`, a chunked POST to /response, an error as the
 * trailers Lambda-Runtime-Function-Error-Type and -Body), its head sent at the first write or at the end, so that the
 * content type may be set before. `answered`: the Runtime API's answer, once the stream has ended.
 */
const responseStream = (path) => {
  let contentType = 'application/octet-stream';
  let headSent = false;
  let wrote = false;
  const answered = Promise.withResolvers();
  const head = () => {
    if (headSent) return;
    headSent = true;
    const [answer] = send(
      `POST /2018-06-01/runtime${path} HTTP/1.1\r\nHost: ${runtimeApi}\r\nLambda-Runtime-Function-Response-Mode: streaming\r\n` +
        `Content-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n` +
        'Trailer: Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body\r\n\r\n',
      1,
    );
    void answer.then(answered.resolve);
  };
  // A chunk of the chunked body; an empty one would end it.
  const chunk = (data) => {
    const bytes = Buffer.from(data);
    if (bytes.length > 0)
      connection.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
  };
  const stream = new Writable({
    write(data, _encoding, callback) {
      head();
      if (!wrote) stream._onBeforeFirstWrite?.(chunk);
      wrote = true;
      chunk(data);
      callback();
    },
    final(callback) {
      head();
      connection.write('0\r\n\r\n');
      callback();
    },
  });
  stream.setContentType = (type) => {
    if (headSent) throw new Error('Cannot set content-type, too late.');
    contentType = type;
  };
  /** Ends the stream with the error as its trailers (the standard error body, base64). */
  const fail = (error) => {
    head();
    const { errorType, message } = reported(error);
    const stackTrace = error instanceof Error && typeof error.stack === 'string' ? error.stack.split('\n') : [];
    const body = Buffer.from(JSON.stringify({ errorMessage: message, errorType, stackTrace })).toString('base64');
    connection.write(
      `0\r\nLambda-Runtime-Function-Error-Type: ${errorType}\r\nLambda-Runtime-Function-Error-Body: ${body}\r\n\r\n`,
    );
    return answered.promise;
  };
  return { stream, fail, answered: answered.promise, ended: () => stream.writableFinished || stream.destroyed };
};

/**
 * A streaming handler's invocation (the runtime client's StreamingInvokeProcessor): the handler must be async; once
 * it settles, the invocation waits for the stream's end; a throw or a rejection ends the stream with the error.
 */
const invokeStreaming = async (parsed, context, path, requestId) => {
  const { stream, fail, answered, ended } = responseStream(path);
  let failed = false;
  const failWith = async (error) => {
    if (failed || ended()) return;
    failed = true;
    logError('Invoke Error', error instanceof Error ? error : new Error(String(error)), requestId);
    await fail(error);
  };
  whenEventLoopEmpty(() => void failWith(runtimeError('Runtime.NodeJsExit', nodeJsExitMessage)));
  try {
    const result = handler(parsed, stream, context);
    if (typeof result?.then !== 'function') throw new Error('Streaming does not support non-async handlers.');
    await result;
    await answered;
  } catch (error) {
    await failWith(error);
  }
  onEmptyLoop = () => undefined;
};

/**
 * One invocation, from GET /invocation/next's answer; resolves, once its outcome is posted, with the next poll's
 * answer.
 */
const invoke = async ({ headers, body }) => {
  const posted = Promise.withResolvers();
  const invoked = posted.resolve;
  const requestId = String(headers['lambda-runtime-aws-request-id']);
  const deadline = Number(headers['lambda-runtime-deadline-ms']);
  const parsed = JSON.parse(body);
  process.env._X_AMZN_TRACE_ID = String(headers['lambda-runtime-trace-id']);
  const context = {
    functionName: functionId,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    invokedFunctionArn: String(headers['lambda-runtime-invoked-function-arn']),
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    // As the runtime reads them, from its environment.
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  if (streams)
    return invokeStreaming(parsed, context, `/invocation/${encodeURIComponent(requestId)}/response`, requestId).then(
      poll,
    );
  let finished = false;
  /** The invocation's outcome, once: its result as JSON, or its error (logged as the runtime logs it). */
  const finish = (outcome) => {
    if (finished) return;
    finished = true;
    onEmptyLoop = () => undefined;
    const path = `/invocation/${encodeURIComponent(requestId)}`;
    if ('error' in outcome) {
      const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      logError('Invoke Error', error, requestId);
      void postError(`${path}/error`, outcome.error).then(() => invoked(poll()));
      return;
    }
    let json;
    try {
      json = JSON.stringify(outcome.result) ?? 'null';
    } catch {
      // Not JSON (a bigint, a cycle): Lambda could not serialize it either.
      void postError(`${path}/error`, runtimeError('Runtime.MalformedResult', 'The result cannot be serialized')).then(
        () => invoked(poll()),
      );
      return;
    }
    // The response and the next poll in one write (HTTP/1.1 pipelining, RFC 9112 section 9.3): the Runtime API answers
    // them in turn, and the poll waits there for the next invocation as it would have once the response was answered.
    const [, next] = send(
      request('POST', `${path}/response`, json, { 'Content-Type': 'application/json' }) +
        request('GET', '/invocation/next'),
      2,
    );
    invoked(next);
  };
  // As the runtime's default beforeExit listener: a handler that neither answers nor settles has failed (a promise
  // never settled), or, a plain function up to nodejs22.x, answered null (it may have forgotten its callback).
  const promised = !takesCallbacks || handler.constructor.name === 'AsyncFunction';
  whenEventLoopEmpty(() =>
    finish(promised ? { error: runtimeError('Runtime.NodeJsExit', nodeJsExitMessage) } : { result: null }),
  );
  if (!takesCallbacks) {
    try {
      finish({ result: await handler(parsed, context) });
    } catch (error) {
      finish({ error });
    }
    return posted.promise;
  }
  const { callback, legacy } = callbackStyle(finish);
  Object.defineProperties(context, Object.getOwnPropertyDescriptors(legacy));
  try {
    const result = handler(parsed, context, callback);
    if (typeof result?.then === 'function') result.then(legacy.succeed, legacy.fail);
  } catch (error) {
    callback(error);
  }
  return posted.promise;
};

for (let next = await poll(); ; ) next = await invoke(next);
