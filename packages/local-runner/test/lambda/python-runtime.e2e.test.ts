// The Python runtime (src/lambda/runtime.py) against the Runtime API (runtime-api.ts), started as the runner starts it:
// `python3 runtime.py` in the function's folder, with Lambda's environment. What it posts and logs is compared with
// what awslambdaric (aws/aws-lambda-python-runtime-interface-client), Lambda's Python runtime client, produces:
// awslambdaric/bootstrap.py (_get_handler, make_error, log_error, handle_event_request, _setup_logging),
// lambda_context.py, lambda_runtime_marshaller.py, lambda_runtime_log_utils.py (JsonFormatter), and its tests
// (tests/test_bootstrap.py, tests/test_lambda_runtime_marshaller.py) for the exact messages.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, expect, test } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import { spawnInGroup, stopGroups } from 'test-support/process-group';
import { type RuntimeApi, startRuntimeApi } from '../../src/lambda/runtime-api.ts';

const runtimeFile = new URL('../../src/lambda/runtime.py', import.meta.url).pathname;
const fixtures = new URL('../fixtures/python', import.meta.url).pathname;
const layer = new URL('../fixtures/python-layer/python', import.meta.url).pathname;

let closers: (() => void)[] = [];
afterEach(() => {
  stopGroups();
  for (const close of closers) close();
  closers = [];
});

/** A package this machine's python3 has in its own site-packages, and where (as the runtime names the place). */
let sitePackage: { name: string; location: string } | undefined;
/** Whether this machine's python3 has boto3. */
let hasBoto3 = false;
beforeAll(() => {
  const probe = `
import importlib.util, json, os, site
sites = [os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]]
for name in ("requests", "yaml", "setuptools", "pip"):
    spec = importlib.util.find_spec(name)
    if spec and spec.origin and any(os.path.realpath(spec.origin).startswith(s + os.sep) for s in sites):
        where = os.path.dirname(spec.origin) if spec.submodule_search_locations is not None else spec.origin
        print(json.dumps({"name": name, "location": where}))
        break
`;
  const found = execFileSync('python3', ['-c', probe], { encoding: 'utf8' }).trim();
  sitePackage = found ? (JSON.parse(found) as typeof sitePackage) : undefined;
  try {
    execFileSync('python3', ['-c', 'import boto3'], { stdio: 'ignore' });
    hasBoto3 = true;
  } catch {
    hasBoto3 = false;
  }
});

const lambdaEnvironment = (handler: string, address: string, extra: Record<string, string>) => {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_LAMBDA_') && !name.startsWith('PYTHON')),
  );
  return {
    ...inherited,
    AWS_LAMBDA_RUNTIME_API: address,
    _HANDLER: handler,
    LAMBDA_TASK_ROOT: fixtures,
    AWS_LAMBDA_FUNCTION_NAME: 'Items',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
    AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/Items',
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/01/01/[$LATEST]0123456789abcdef',
    PYTHONPATH: layer,
    ...extra,
  };
};

/** Starts runtime.py for `handler`, in the fixtures' folder, on `address`; its log lines recorded, its exit awaitable. */
const spawnRuntime = (handler: string, address: string, extra: Record<string, string>, pythonFlags: string[]) => {
  const child = spawnInGroup('python3', [...pythonFlags, runtimeFile], {
    cwd: fixtures,
    env: lambdaEnvironment(handler, address, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = recordedLog();
  for (const output of [child.stdout, child.stderr]) if (output) createInterface({ input: output }).on('line', log.log);
  // 'close': the process has ended and all its output was read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, log, exited };
};

type Report = [string, ...string[]];

/** An environment: runtime.py on a Runtime API whose reports are recorded, each as [what, ...values]. */
const environment = async (handler: string, extra: Record<string, string> = {}, pythonFlags: string[] = []) => {
  const reports: Report[] = [];
  const waiters: { matches: (report: Report) => boolean; resolve: (report: Report) => void }[] = [];
  const push = (report: Report) => {
    reports.push(report);
    for (const waiter of waiters.filter(({ matches }) => matches(report))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(report);
    }
  };
  const api: RuntimeApi = await startRuntimeApi({
    ready: () => push(['ready']),
    initError: (...values) => push(['initError', ...values]),
    response: (...values) => push(['response', ...values]),
    error: (...values) => push(['error', ...values]),
    stream: (requestId, contentType) => push(['stream', requestId, contentType]),
  });
  closers.push(api.close);
  /** The first report that `matches`, made or to come. */
  const reported = (matches: (report: Report) => boolean) =>
    new Promise<Report>((resolve) => {
      const made = reports.find(matches);
      if (made) resolve(made);
      else waiters.push({ matches, resolve });
    });
  const runtime = spawnRuntime(handler, api.address, extra, pythonFlags);
  let invocations = 0;
  /** Delivers an invocation; resolves with the runtime's answer (its response or its error), or with its end. */
  const invoke = (
    event: unknown,
    traceId = 'Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=0',
  ) => {
    invocations += 1;
    const requestId = `8476a536-e9f4-11e8-9739-2dfe598c3f${String(invocations).padStart(2, '0')}`;
    api.deliver({
      requestId,
      event: JSON.stringify(event),
      deadline: Date.now() + deadlineMs,
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:Items:live',
      traceId,
    });
    return Promise.race([
      reported(([kind, id]) => (kind === 'response' || kind === 'error') && id === requestId),
      runtime.exited.then((code): Report => ['exited', String(code)]),
    ]);
  };
  return { reports, reported, invoke, api, ...runtime };
};

/** The lines of `log` from the one matching `first`, `count` of them. */
const linesFrom = (lines: string[], first: string, count: number) => {
  const index = lines.indexOf(first);
  return index < 0 ? [] : lines.slice(index, index + count);
};

const nbsp = '\u00a0';
/**
 * How far off each invocation's deadline is: a minute, so that the time left the handler reads (`remaining_ms`) is
 * above 0 even when Python starts slowly on busy cores (at 3 s it read 0 with two suites on two cores).
 */
const deadlineMs = 60_000;

test('an invocation: the event, the context as awslambdaric builds it, the trace id; then the next one', async () => {
  const { invoke, reports } = await environment('echo.handler');
  const [, requestId, text] = await invoke({ path: '/items', name: 'café' });
  // json.dumps' separators; non-ASCII escaped, as awslambdaric's encoder does before python3.12.
  expect(text?.startsWith('{"event": {"path": "/items", "name": "caf\\u00e9"}, "function_name": "Items"')).toBe(true);
  const answer = JSON.parse(text ?? '') as { remaining_ms: number };
  expect(answer).toEqual({
    event: { path: '/items', name: 'café' },
    function_name: 'Items',
    function_version: '$LATEST',
    invoked_function_arn: 'arn:aws:lambda:us-east-1:000000000000:function:Items:live',
    memory_limit_in_mb: '256',
    aws_request_id: requestId,
    log_group_name: '/aws/lambda/Items',
    log_stream_name: '2026/01/01/[$LATEST]0123456789abcdef',
    identity: [null, null],
    client_context: null,
    tenant_id: null,
    remaining_ms: expect.any(Number),
    trace_id: 'Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=0',
    first_on_path: fixtures,
    cwd: fixtures,
  });
  expect(answer.remaining_ms).toBeGreaterThan(0);
  expect(answer.remaining_ms).toBeLessThanOrEqual(deadlineMs);
  // The same environment takes the next invocation, with its own trace id.
  const [kind, , second] = await invoke({ round: 2 }, 'Root=1-00000000-000000000000000000000002');
  expect(kind).toBe('response');
  expect(JSON.parse(second ?? '')).toMatchObject({
    event: { round: 2 },
    trace_id: 'Root=1-00000000-000000000000000000000002',
  });
  expect(reports[0]).toEqual(['ready']);
});

test("a handler's exception: its class name and message, logged as awslambdaric logs it (Text)", async () => {
  const { invoke, log } = await environment('raising.handler');
  const [, requestId, errorType, message] = await invoke({ message: 'boom' });
  expect([requestId, errorType, message]).toEqual([expect.any(String), 'ValueError', 'boom']);
  // One write, its lines joined by carriage returns (which a line reader splits), indented with no-break spaces.
  await log.seen(/raise ValueError\(message\)$/);
  expect(linesFrom(log.lines, '[ERROR] ValueError: boom', 6)).toEqual([
    '[ERROR] ValueError: boom',
    'Traceback (most recent call last):',
    `${nbsp.repeat(2)}File "${fixtures}/raising.py", line 2, in handler`,
    `${nbsp.repeat(4)}fail(event["message"])`,
    `${nbsp.repeat(2)}File "${fixtures}/raising.py", line 6, in fail`,
    `${nbsp.repeat(4)}raise ValueError(message)`,
  ]);
});

/**
 * A Runtime API that hands out one invocation and records what the runtime posts, headers and body as sent (the
 * shared one reports only an error's type and message).
 */
const recordingApi = async () => {
  const posts: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let posted: () => void = () => undefined;
  const firstPost = new Promise<void>((resolve) => {
    posted = resolve;
  });
  let given = false;
  const server = createServer((request, response) => {
    if (request.method === 'GET') {
      // One invocation; the next call waits until the test ends.
      if (given) return;
      given = true;
      const event = '{"message":"boom"}';
      response.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(event),
        'Lambda-Runtime-Aws-Request-Id': 'request-1',
        'Lambda-Runtime-Deadline-Ms': String(Date.now() + 3_000),
        'Lambda-Runtime-Invoked-Function-Arn': 'arn:aws:lambda:us-east-1:000000000000:function:Items',
        'Lambda-Runtime-Trace-Id': 'Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700',
      });
      response.end(event);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posts.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(202, { 'Content-Type': 'application/json' });
      response.end('{"status":"OK"}');
      posted();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, posts, firstPost };
};

test('the error bodies as awslambdaric posts them: requestId and stackTrace, and the init error type header', async () => {
  const invocation = await recordingApi();
  spawnRuntime('raising.handler', invocation.address, {}, []);
  await invocation.firstPost;
  const [error] = invocation.posts;
  expect(error?.path).toBe('/2018-06-01/runtime/invocation/request-1/error');
  expect(JSON.parse(error?.body ?? '')).toEqual({
    errorMessage: 'boom',
    errorType: 'ValueError',
    requestId: 'request-1',
    stackTrace: [
      `  File "${fixtures}/raising.py", line 2, in handler\n    fail(event["message"])\n`,
      `  File "${fixtures}/raising.py", line 6, in fail\n    raise ValueError(message)\n`,
    ],
  });
  // The native client sends the X-Ray cause, and no error type header, with an invocation's error.
  expect(error?.headers['lambda-runtime-function-error-type']).toBeUndefined();
  expect(JSON.parse(String(error?.headers['lambda-runtime-function-xray-error-cause']))).toEqual({
    working_directory: fixtures,
    exceptions: [
      {
        message: 'boom',
        type: 'ValueError',
        stack: [
          { label: 'handler', path: `${fixtures}/raising.py`, line: 2 },
          { label: 'fail', path: `${fixtures}/raising.py`, line: 6 },
        ],
      },
    ],
    paths: [`${fixtures}/raising.py`],
  });

  for (const [handler, errorType, errorMessage, stackTrace] of [
    [
      'missing_module.handler',
      'Runtime.ImportModuleError',
      "Unable to import module 'missing_module': No module named 'not_a_module_anywhere'",
      [],
    ],
    [
      'syntax_error.handler',
      'Runtime.UserCodeSyntaxError',
      expect.stringMatching(/^Syntax error in module 'syntax_error': .+ \(syntax_error\.py, line 3\)$/),
      [`  File "${fixtures}/syntax_error.py" Line 3\n    def handler(event, context)\n`],
    ],
  ] as const) {
    const init = await recordingApi();
    const { exited } = spawnRuntime(handler, init.address, {}, []);
    await init.firstPost;
    const [post] = init.posts;
    expect(post?.path).toBe('/2018-06-01/runtime/init/error');
    expect(post?.headers['lambda-runtime-function-error-type']).toBe(errorType);
    expect(JSON.parse(post?.body ?? '')).toEqual({ errorMessage, errorType, requestId: '', stackTrace });
    expect(await exited).toBe(1);
  }
});

test.each([
  [
    'syntax_error.handler',
    'Runtime.UserCodeSyntaxError',
    /^Syntax error in module 'syntax_error': .+ \(syntax_error\.py, line 3\)$/,
  ],
  [
    'missing_module.handler',
    'Runtime.ImportModuleError',
    "Unable to import module 'missing_module': No module named 'not_a_module_anywhere'",
  ],
  ['echo.nope', 'Runtime.HandlerNotFound', "Handler 'nope' missing on module 'echo'"],
  ['echo', 'Runtime.MalformedHandlerName', "Bad handler 'echo': not enough values to unpack (expected 2, got 1)"],
  ['sys.handler', 'Runtime.BuiltInModuleConflict', 'Cannot use built-in module sys as a handler module'],
])('init: _HANDLER %s is %s, reported, logged, and the runtime ends non-zero', async (handler, errorType, message) => {
  const { reports, log, exited } = await environment(handler);
  expect(await exited).toBe(1);
  expect(reports).toEqual([
    ['initError', errorType, typeof message === 'string' ? message : expect.stringMatching(message)],
  ]);
  const logged = `[ERROR] ${errorType}: ${reports[0]?.[2]}`;
  // awslambdaric's warning first, then the error with its (here empty or one-frame) trace.
  expect(log.lines[0]).toMatch(
    /^\[WARNING\]\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\t\tLAMBDA_WARNING: Unhandled exception\. The most likely cause is an issue in the function code\./,
  );
  expect(linesFrom(log.lines, logged, 2)).toEqual([logged, 'Traceback (most recent call last):']);
});

test('JSON log format: the error and the init error as awslambdaric logs them in JSON', async () => {
  const { invoke, log } = await environment('raising.handler', { AWS_LAMBDA_LOG_FORMAT: 'JSON' });
  const [, requestId] = await invoke({ message: 'boom' });
  await log.seen(/"errorType": "ValueError"/);
  const line = log.lines.find((text) => text.includes('"errorType": "ValueError"')) ?? '';
  expect(JSON.parse(line)).toEqual({
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    log_level: 'ERROR',
    errorMessage: 'boom',
    errorType: 'ValueError',
    requestId,
    stackTrace: [
      `  File "${fixtures}/raising.py", line 2, in handler\n    fail(event["message"])\n`,
      `  File "${fixtures}/raising.py", line 6, in fail\n    raise ValueError(message)\n`,
    ],
  });

  const init = await environment('missing_module.handler', { AWS_LAMBDA_LOG_FORMAT: 'JSON' });
  expect(await init.exited).toBe(1);
  expect(init.log.lines.map((text) => JSON.parse(text) as unknown)).toEqual([
    {
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      level: 'WARNING',
      message: expect.stringMatching(/^LAMBDA_WARNING: Unhandled exception\..*runtimes-update\.html\r$/),
      logger: 'root',
      requestId: '',
    },
    {
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      log_level: 'ERROR',
      errorMessage: "Unable to import module 'missing_module': No module named 'not_a_module_anywhere'",
      errorType: 'Runtime.ImportModuleError',
      requestId: '',
      stackTrace: [],
    },
  ]);
});

test("print and logging: the root logger's Lambda format with the request id, its level from AWS_LAMBDA_LOG_LEVEL", async () => {
  const text = await environment('logs.handler');
  const [kind, requestId, body] = await text.invoke({ n: 1 });
  expect([kind, body]).toEqual(['response', 'null']);
  // `done` is printed last: every line before it has been read.
  await text.log.seen(/^done$/);
  const stamp = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
  expect(text.log.lines).toEqual([
    'printed 1',
    expect.stringMatching(new RegExp(`^\\[WARNING\\]\\t${stamp}\\t${requestId}\\twarned 1$`)),
    // INFO is under the root logger's default level (WARNING), as on Lambda without a log level.
    expect.stringMatching(new RegExp(`^\\[ERROR\\]\\t${stamp}\\t${requestId}\\twith extra$`)),
    'done',
  ]);

  const json = await environment('logs.handler', { AWS_LAMBDA_LOG_FORMAT: 'JSON', AWS_LAMBDA_LOG_LEVEL: 'INFO' });
  const [, id] = await json.invoke({ n: 2 });
  await json.log.seen(/^done$/);
  const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(json.log.lines.map((line) => (line.startsWith('{') ? JSON.parse(line) : line) as unknown)).toEqual([
    'printed 2',
    { timestamp, level: 'WARNING', message: 'warned 2', logger: 'root', requestId: id },
    { timestamp, level: 'INFO', message: 'informed', logger: 'app', requestId: id },
    { timestamp, level: 'ERROR', message: 'with extra', logger: 'root', requestId: id, orderId: 7 },
    'done',
  ]);
});

test("results as awslambdaric's encoder writes them: Decimal's digits, bytes, non-ASCII text, a result that is not JSON", async () => {
  const answer = async (handler: string, extra: Record<string, string> = {}) =>
    (await (await environment(handler, extra)).invoke({})).slice(2);
  expect(await answer('values.decimals')).toEqual([
    '{"price": 1.10, "big": 12345678901234567890.123456789, "nan": NaN}',
  ]);
  expect(await answer('values.text')).toEqual(['{"name": "caf\\u00e9", "raw": "bytes"}']);
  expect(await answer('values.text', { AWS_EXECUTION_ENV: 'AWS_Lambda_python3.12' })).toEqual([
    '{"name": "café", "raw": "bytes"}',
  ]);
  expect(await answer('values.raw_bytes')).toEqual(['not json']);
  expect(await answer('values.a_set')).toEqual([
    'Runtime.MarshalError',
    'Unable to marshal response: Object of type set is not JSON serializable',
  ]);
});

test.each(['pkg/mod.handler', 'pkg.mod.handler'])('a handler in a folder: %s', async (handler) => {
  const { invoke } = await environment(handler);
  expect(await invoke({})).toEqual(['response', expect.any(String), '{"module": "pkg.mod"}']);
});

test("imports: the standard library and the layers (PYTHONPATH) are there; the machine's site-packages are not", async () => {
  expect(sitePackage).toBeDefined();
  const { name, location } = sitePackage ?? { name: '', location: '' };
  const { invoke } = await environment('imports.handler');
  const [kind, , body] = await invoke({ modules: ['json', 'xml.dom.minidom', 'layered', name] });
  expect(kind).toBe('response');
  expect(JSON.parse(body ?? '')).toEqual({
    json: 'imported',
    'xml.dom.minidom': 'imported',
    layered: 'imported',
    [name]: `ModuleNotFoundError: No module named '${name}': it was found locally at ${location}, but it is not in the function's code or layers; on Lambda only those, the standard library and the runtime's boto3 can be imported, so this import would fail on Lambda: add the package to the function's code or to a layer`,
  });
});

test("boto3 is the runtime's: taken from this machine's python3 when it has it, else the init error says how", async () => {
  const missing =
    /^Unable to import module 'uses_boto3': No module named 'boto3': boto3 is part of the AWS SDK for Python \(boto3 and its dependencies\) that Lambda's Python runtime provides, so the function's code need not include it; locally it comes from the function's code or layers, the python3 the runner starts, or the runner's cache \(installed at start, said in the runner's log\): install it for that python3 \(\S+ -m pip install boto3\), or add it to the function's code or a layer$/;
  // A python3 without its site-packages (-S) has no boto3, whatever this machine has installed.
  const hidden = await environment('uses_boto3.handler', {}, ['-S']);
  expect(await hidden.exited).toBe(1);
  expect(hidden.reports).toEqual([['initError', 'Runtime.ImportModuleError', expect.stringMatching(missing)]]);

  const { invoke, reports, exited } = await environment('uses_boto3.handler');
  if (hasBoto3)
    expect(await invoke({})).toEqual(['response', expect.any(String), expect.stringMatching(/^\{"boto3": "\d/)]);
  else {
    expect(await exited).toBe(1);
    expect(reports).toEqual([['initError', 'Runtime.ImportModuleError', expect.stringMatching(missing)]]);
  }
});

test('SIGINT, SIGTERM and SIGHUP leave it serving; the Runtime API gone, it ends with code 0', async () => {
  const { child, reported, invoke, api, exited } = await environment('echo.handler');
  await reported(([kind]) => kind === 'ready');
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) child.kill(signal);
  expect((await invoke({ after: 'signals' }))[0]).toBe('response');
  api.close();
  expect(await exited).toBe(0);
});
