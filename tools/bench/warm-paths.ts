// The benchmark's warm measurements, in a process of their own (its stdout, where the functions log, goes nowhere):
// the synthesized bundles loaded once, then each path invoked many times and each invocation timed. Then it serves
// the in-process ceiling: node:http straight into the same createPlant handler, no gateway, no execution environments.
// Started by bench.ts with a JSON settings file; answers over IPC with its results and the ceiling's URL.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleFetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createPlantEvent, lambdaContext, tokenAuthorizerEvent } from '../../test/helpers/events.ts';
import { asSent, serveCeiling } from './ceiling.ts';
import { profiling } from './cpu-profile.ts';
import { percentile } from './statistics.ts';

export interface WarmSettings {
  createPlant: { modulePath: string; env: Record<string, string> };
  authorizer: { modulePath: string; env: Record<string, string>; token: string; issuer: string; jwksUri: string };
  /** The first plant id this process may use; it uses ids upwards from there. */
  firstId: number;
}

export interface WarmPath {
  p50: number;
  p99: number;
  count: number;
}

export interface WarmResults {
  refusedMicros: WarmPath;
  createMillis: WarmPath;
  authorizerMicros: WarmPath;
  bareVerifyMicros: WarmPath;
  /** Bytes each function writes to its log per invocation (what CloudWatch Logs ingests, besides Lambda's lines). */
  logBytes: { create: number; authorizer: number };
  /** Where the time of 5,000 more invocations goes (reported when a target is missed). */
  profiles: { refused: string; authorizer: string };
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

const settings = JSON.parse(readFileSync(String(process.argv[2]), 'utf8')) as WarmSettings;
const baseEnv = { ...process.env };

/** Loads a bundle with its function's environment, as its own execution environment would. */
const load = async <E, R>(modulePath: string, env: Record<string, string>): Promise<Handler<E, R>> => {
  process.env = { ...baseEnv, ...env };
  const { handler } = (await import(pathToFileURL(modulePath).href)) as { handler: Handler<E, R> };
  return handler;
};

/** Times `call` alone: each invocation gets a fresh event and context, made before its clock starts. */
const timed = async <A>(
  count: number,
  warmUp: number,
  prepare: () => A,
  call: (args: A) => Promise<unknown>,
  scale: number,
) => {
  for (let index = 0; index < warmUp; index += 1) await call(prepare());
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const args = prepare();
    const started = performance.now();
    await call(args);
    times.push((performance.now() - started) * scale);
  }
  return times;
};
const summary = (times: number[]): WarmPath => ({
  p50: percentile(times, 50),
  p99: percentile(times, 99),
  count: times.length,
});

/** Bytes written to stdout and stderr while `call` runs. */
const loggedBytes = async (call: () => Promise<unknown>) => {
  let bytes = 0;
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) {
    const original = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      bytes += Buffer.byteLength(chunk);
      return original.call(stream, chunk, ...rest);
    }) as typeof stream.write;
  }
  await call();
  streams.forEach((stream, index) => {
    stream.write = writes[index] as typeof stream.write;
  });
  return bytes;
};

const createPlant = await load<APIGatewayProxyEvent, APIGatewayProxyResult>(
  settings.createPlant.modulePath,
  settings.createPlant.env,
);
let nextId = settings.firstId;
// Each invocation has its own context, counting down from the function's timeout as Lambda's does.
const context = () => lambdaContext('CreatePlantFunction', 10_000);
const newPlant = () => ({
  event: createPlantEvent(asSent(JSON.stringify({ id: nextId++, name: 'Monstera deliciosa', tag: 'aroid' }))),
  context: context(),
});
const create = async ({ event, context }: ReturnType<typeof newPlant>) => {
  const answer = await createPlant(event, context);
  if (answer.statusCode !== 200) throw new Error(`create answered ${answer.statusCode}: ${answer.body}`);
};
const stringId = () => ({ event: createPlantEvent(asSent('{"id":"seven","name":"Monstera"}')), context: context() });
const refuse = async ({ event, context }: ReturnType<typeof stringId>) => {
  const answer = await createPlant(event, context);
  if (answer.statusCode !== 400) throw new Error(`the 400 path answered ${answer.statusCode}`);
};

const authorizer = await load<unknown, unknown>(settings.authorizer.modulePath, settings.authorizer.env);
const bearer = () => ({
  event: tokenAuthorizerEvent(`Bearer ${settings.authorizer.token}`),
  context: lambdaContext('BearerAuthorizerFunction', 5_000),
});
const authorize = ({ event, context }: ReturnType<typeof bearer>) => authorizer(event, context);
// The bare library: aws-jwt-verify's verify alone, with its keys cached (the same loopback issuer, reached over http
// the way the authorizer reaches it).
const { Agent } = await import('node:http');
const bare = JwtVerifier.create(
  { issuer: settings.authorizer.issuer, audience: null, jwksUri: settings.authorizer.jwksUri },
  { jwksCache: new SimpleJwksCache({ fetcher: new SimpleFetcher({ defaultRequestOptions: { agent: new Agent() } }) }) },
);
const bareVerify = (token: string) => bare.verify(token);
const sameToken = () => settings.authorizer.token;

const logBytes = {
  create: await loggedBytes(() => create(newPlant())),
  authorizer: await loggedBytes(() => authorize(bearer())),
};
const refused = await timed(20_000, 2_000, stringId, refuse, 1_000);
const created = await timed(1_000, 100, newPlant, create, 1);
// The authorizer and the bare verify in alternating blocks, so that drift falls on both.
const authorizerTimes: number[] = [];
const bareTimes: number[] = [];
for (let block = 0; block < 10; block += 1) {
  authorizerTimes.push(...(await timed(1_000, block === 0 ? 1_000 : 100, bearer, authorize, 1_000)));
  bareTimes.push(...(await timed(1_000, block === 0 ? 1_000 : 100, sameToken, bareVerify, 1_000)));
}
const profiles = {
  refused: await profiling(() => timed(5_000, 0, stringId, refuse, 1)),
  authorizer: await profiling(() => timed(5_000, 0, bearer, authorize, 1)),
};
const results: WarmResults = {
  refusedMicros: summary(refused),
  createMillis: summary(created),
  authorizerMicros: summary(authorizerTimes),
  bareVerifyMicros: summary(bareTimes),
  logBytes,
  profiles,
};

// The ceiling: what node:http can serve when a request goes straight into the handler.
const { url: ceilingUrl, server: ceiling } = await serveCeiling(createPlant);
process.send?.({ results, ceilingUrl });
// Any message stops it (bench.ts reads its CPU time from /proc).
process.on('message', () => {
  ceiling.closeAllConnections();
  ceiling.close(() => process.exit(0));
});
