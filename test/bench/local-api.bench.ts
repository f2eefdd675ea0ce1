// `npm run bench`: how fast a fresh clone serves, and how the served stack performs, measured on this machine.
// Loopback only, bounded in count. Targets are reported here (met or not), never asserted by the tests.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signDevToken } from '../../infra/local/dev-issuer.ts';
import { startLocalApi } from '../../infra/local/local-api.ts';

const projectRoot = new URL('../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const cloudAssemblyDir = join(scratch, 'cdk.out');
const rows: [string, string, string][] = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

// 1. What a fresh clone does first: the real `cdk synth` (bundling both functions, cdk-nag).
let started = performance.now();
await promisify(execFile)('node_modules/.bin/cdk', ['synth', '--quiet', '--output', cloudAssemblyDir], {
  cwd: projectRoot,
  env: { ...process.env, CDK_HOME: join(scratch, '.cdk-home') },
});
const synthMs = performance.now() - started;
rows.push(['cdk synth (both bundles, cdk-nag)', seconds(synthMs), '']);

// 2. From a synthesized app to serving.
const initTimes: string[] = [];
started = performance.now();
const api = await startLocalApi({
  cloudAssemblyDir,
  port: 0,
  dataDir: join(scratch, 'data'),
  maxWorkers: 4,
  envVars: {
    CreatePlantFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    BearerAuthorizerFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  },
  log: (line) =>
    initTimes.push(...[...line.matchAll(/cold start (\w+), init (\d+) ms/g)].map(([, id, ms]) => `${id} ${ms} ms`)),
});
const readyMs = performance.now() - started;
rows.push(['start serving (database, issuer, gateway)', seconds(readyMs), '']);
rows.push([
  'fresh clone to ready (synth + start)',
  seconds(synthMs + readyMs),
  `target < 20 s: ${synthMs + readyMs < 20_000 ? 'met' : 'NOT met'}`,
]);

const token = await signDevToken(api.signingKey, { sub: 'bench', scope: 'plants/write', expiresIn: '1h' });
let nextId = 1;
const create = async () => {
  const begun = performance.now();
  const response = await fetch(`${api.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Monstera deliciosa', tag: 'aroid' }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return performance.now() - begun;
};

// 3. The first request pays both cold starts; then warm requests, one at a time and 16 at once.
rows.push(['first request (authorizer + function cold)', `${(await create()).toFixed(0)} ms`, initTimes.join(', ')]);
const sequential: number[] = [];
for (let index = 0; index < 300; index += 1) sequential.push(await create());
rows.push([
  'warm POST /plants, sequential (300)',
  `p50 ${percentile(sequential, 50).toFixed(1)} ms`,
  `p95 ${percentile(sequential, 95).toFixed(1)} ms, p99 ${percentile(sequential, 99).toFixed(1)} ms`,
]);
const concurrent: number[] = [];
started = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    for (let index = 0; index < 50; index += 1) concurrent.push(await create());
  }),
);
const concurrentMs = performance.now() - started;
rows.push([
  'warm POST /plants, 16 at once (800)',
  `${((concurrent.length / concurrentMs) * 1000).toFixed(0)} req/s`,
  `p50 ${percentile(concurrent, 50).toFixed(1)} ms, p95 ${percentile(concurrent, 95).toFixed(1)} ms`,
]);
await api.close();

// 4. What Lambda loads at each cold start.
for (const fn of api.app.functions.values()) {
  rows.push([
    `bundle ${fn.id}`,
    `${(statSync(fn.modulePath).size / 1024).toFixed(0)} KiB`,
    'minified ESM, all dependencies inside',
  ]);
}

console.log(
  `Plant Store benchmarks (${new Date().toISOString()}, Node ${process.versions.node}, ${readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? '?'} cores)\n`,
);
console.log('| measure | result | detail |\n|---|---|---|');
for (const [measure, result, detail] of rows) console.log(`| ${measure} | ${result} | ${detail} |`);
rmSync(scratch, { recursive: true, force: true });
