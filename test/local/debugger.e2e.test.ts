// `--inspect=CreatePlantFunction`: a debugger attaches to the function's execution environment over the inspector
// protocol (Chrome DevTools Protocol, over the WebSocket Node's inspector serves: https://nodejs.org/api/debugger.html,
// https://chromedevtools.github.io/devtools-protocol/), sets a breakpoint by TypeScript file and line as VS Code does
// (through the bundle's source map: the TypeScript position mapped to the bundle's), and a request hits it; the app
// synthesized for --inspect is bundled unminified, so the source's names read in the paused frame. Paused
// there past the function's timeout, the invocation goes on; resumed, the request is answered (docs/debugging.md).
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  GREATEST_LOWER_BOUND,
  generatedPositionFor,
  LEAST_UPPER_BOUND,
  originalPositionFor,
  TraceMap,
} from '@jridgewell/trace-mapping';
import { appProjectAt, inspectContextKey, type Runner, signDevToken, startRunner, synthesize } from 'cdk-local-runner';
import { recordedLog } from 'test-support/log-lines';
import { projectRoot } from '../../infra/project-root.ts';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { postPlant } from '../helpers/post-plant.ts';

const source = 'functions/create-plant/create-plant.ts';
/** The line (1-based) a developer would set a breakpoint on: where the plant's record is built. */
const breakpointLine =
  readFileSync(join(projectRoot, source), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes('const record = {')) + 1;

/** A free port on loopback, for the inspector (the default, 9229, may be taken on a developer's machine). */
const freePort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/** A minimal inspector-protocol client: commands answered by id, events waited for by name. */
const inspectorClient = async (url: string) => {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let nextId = 0;
  const answers = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  const events: { method: string; params: Record<string, unknown> }[] = [];
  type Params = Record<string, unknown>;
  const waiters: { method: string; test: (params: Params) => boolean; resolve: (params: Params) => void }[] = [];
  socket.addEventListener('message', ({ data }) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: unknown;
    };
    if (message.id !== undefined) answers.get(message.id)?.(message);
    else if (message.method) {
      const event = { method: message.method, params: message.params ?? {} };
      events.push(event);
      const waiter = waiters.find(({ method, test }) => method === event.method && test(event.params));
      if (waiter) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event.params);
      }
    }
  });
  return {
    send: (method: string, params: Record<string, unknown> = {}) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const id = ++nextId;
        answers.set(id, ({ result, error }) =>
          error ? reject(new Error(`${method}: ${JSON.stringify(error)}`)) : resolve(result as Record<string, unknown>),
        );
        socket.send(JSON.stringify({ id, method, params }));
      }),
    /** The next event named `method` (not one already received). */
    next: (method: string) => new Promise<Params>((resolve) => waiters.push({ method, test: () => true, resolve })),
    /** An event named `method` whose parameters pass `test`: one received already, or the next. */
    event: (method: string, test: (params: Params) => boolean) => {
      const received = events.find((event) => event.method === method && test(event.params));
      return received
        ? Promise.resolve(received.params)
        : new Promise<Params>((resolve) => waiters.push({ method, test, resolve }));
    },
    close: () => socket.close(),
  };
};

let api: Runner | undefined;
let inspector: Awaited<ReturnType<typeof inspectorClient>> | undefined;
const functionLog = recordedLog();

beforeAll(async () => {
  const port = await freePort();
  // Synthesized as `start --inspect` synthesizes it: with the runner's context value for debugging.
  const cloudAssemblyDir = mkdtempSync(join(tmpdir(), 'plant-store-debug-'));
  await synthesize({ ...appProjectAt(projectRoot), context: { [inspectContextKey]: 'true' } }, cloudAssemblyDir);
  api = await startRunner({
    ...plantStoreOptions(),
    cloudAssemblyDir,
    inspect: { functionId: 'CreatePlantFunction', firstPort: port },
    functionLog: (functionId, line) => functionLog.log(`${functionId}: ${line}`),
  });
  expect(api.inspectPorts).toEqual(new Map([['CreatePlantFunction', port]]));
  // The debugged function's environment starts with the runner, so a debugger can attach before the first request.
  const listening = /^CreatePlantFunction: Debugger listening on (ws:\/\/\S+)/;
  await functionLog.seen(listening);
  const url = functionLog.lines.map((line) => listening.exec(line)?.[1]).find(Boolean);
  if (!url?.includes(`127.0.0.1:${port}/`)) throw new Error(`the inspector is not on port ${port}: ${listening}`);
  inspector = await inspectorClient(url);
}, 180_000);

afterAll(async () => {
  inspector?.close();
  await api?.close();
});

test('a breakpoint set by TypeScript file and line binds through the source map, and a request hits it', async () => {
  if (!api || !inspector) throw new Error('not started');
  const fn = api.app.functions.get('CreatePlantFunction');
  if (fn?.code.language !== 'nodejs') throw new Error('no Node.js CreatePlantFunction');
  const bundleUrl = `file://${fn.code.modulePath}`;
  // The debugger learns of the bundle as it loads (or at once, if it has), and of its source map, as VS Code does.
  const parsed = inspector.event('Debugger.scriptParsed', (params) => params.url === bundleUrl);
  await inspector.send('Debugger.enable');
  expect((await parsed).sourceMapURL).toBe('index.mjs.map');
  const map = new TraceMap(readFileSync(`${fn.code.modulePath}.map`, 'utf8'));
  const mapSource = map.sources.find((path) => path?.endsWith(source));
  if (!mapSource) throw new Error(`${source} is not in the bundle's source map`);
  const generated = generatedPositionFor(map, {
    source: mapSource,
    line: breakpointLine,
    column: 0,
    bias: LEAST_UPPER_BOUND,
  });
  expect(generated.line).not.toBeNull();
  const breakpoint = await inspector.send('Debugger.setBreakpointByUrl', {
    url: bundleUrl,
    lineNumber: (generated.line ?? 1) - 1,
    columnNumber: generated.column ?? 0,
  });
  expect(breakpoint.locations).toHaveLength(1);

  const token = await signDevToken(api.signingKey, { sub: 'debugger', scope: 'plants/write', expiresIn: '1h' });
  const pausedAt = async (id: number) => {
    const paused = inspector?.next('Debugger.paused');
    const response = postPlant(api?.url ?? '', token, { id, name: 'Agave' });
    const { callFrames } = (await paused) as {
      callFrames: {
        callFrameId: string;
        location: { lineNumber: number; columnNumber: number };
        scopeChain: { type: string; object: { objectId: string } }[];
      }[];
    };
    return { response, top: callFrames[0] };
  };

  const { response, top } = await pausedAt(4242);
  if (!top) throw new Error('paused without a call frame');
  // Where it paused is the TypeScript line the breakpoint was set on.
  const original = originalPositionFor(map, {
    line: top.location.lineNumber + 1,
    column: top.location.columnNumber,
    bias: GREATEST_LOWER_BOUND,
  });
  expect(original.source?.endsWith(source)).toBe(true);
  expect(original.line).toBe(breakpointLine);
  // The request's plant is in the paused frame's variables.
  const local = top.scopeChain.find(({ type }) => type === 'local');
  const variables = await inspector.send('Runtime.getProperties', {
    objectId: local?.object.objectId,
    ownProperties: true,
    generatePreview: true,
  });
  expect(JSON.stringify(variables)).toContain('"Agave"');
  // The source's names read in the paused frame, as a developer types them in the debugger's console: the runner
  // synthesized for --inspect, and the stack then bundles unminified (plant-store-function.ts).
  const evaluated = await inspector.send('Debugger.evaluateOnCallFrame', {
    callFrameId: top.callFrameId,
    expression: '[input.name, createdBy]',
    returnByValue: true,
  });
  expect(evaluated.result).toEqual({ type: 'object', value: ['Agave', 'debugger'] });
  await inspector.send('Debugger.resume');
  expect((await response).status).toBe(200);

  // Paused past the function's timeout (10 s), the invocation goes on: the runner says so and cuts nothing off. The
  // deadline the function sees is the real one, so createPlant, which watches its own, answers its 503 once resumed.
  const late = await pausedAt(4243);
  await functionLog.seen(/^CreatePlantFunction: timed out after 10 s on AWS; debugged \(--inspect\), it goes on$/);
  await inspector.send('Debugger.resume');
  const answered = await late.response;
  expect(answered.status).toBe(503);
  expect(await answered.json()).toMatchObject({ error: 503 });
}, 60_000);
