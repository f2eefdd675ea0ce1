// An A/B of the runner's gateway on a busy machine: two builds of cdk-local-runner (two `dist` folders: a copy of the
// build before a change, and the working tree's) serve the same apps in turn, A B, B A, A B..., each round a fresh
// runner process (gateway-serve.ts) under the bench's closed-loop load (http-load.ts) at 1 and 32 connections: a
// function URL in front of a hello-world function (the gateway and one hand-over), and the project's REST API
// (createPlant behind its TOKEN authorizer, stored in dynalite). For each: requests per second and the runner's own
// CPU time per request (its process: the gateway, the pools, the Runtime API; the environments, the database and the
// load are processes of their own), whose figure moves less than throughput when other work shares the CPU.
// Usage: node tools/bench/gateway-ab.ts <dist A> <dist B> [rounds (4)] [seconds (3)] [cloud assembly of the project]
// A copy of a build stays beside the package's own (`cp -r packages/local-runner/dist packages/local-runner/dist-a`,
// removed after), so that it resolves the same dependencies. GATEWAY_AB_ONLY=<text>: only the scenarios whose name
// contains it. GATEWAY_AB_PROFILE=<folder>: a CPU profile of the runner's process during each load, written there
// (<A or B>-<app>-<connections>-<round>.cpuprofile; cpu-profile.ts's summarizeProfile reads one).
import { execFile, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { Code, FunctionUrlAuthType, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { projectRoot } from '../../infra/project-root.ts';
import type { ServeMessage, ServeSettings } from './gateway-serve.ts';
import { median } from './statistics.ts';

const here = new URL('./', import.meta.url).pathname;
const [distA = '', distB = '', roundsText = '4', secondsText = '3', givenAssembly] = process.argv.slice(2);
if (!distA || !distB) throw new Error('usage: gateway-ab.ts <dist A> <dist B> [rounds] [seconds] [cloud assembly]');
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const scratch = mkdtempSync(join(tmpdir(), 'gateway-ab-'));
const profileDir = process.env.GATEWAY_AB_PROFILE;
const progress = (line: string) => console.error(`[ab] ${line}`);

/** The function URL's app: a hello-world function, synthesized here. */
const urlAssembly = () => {
  const codeDir = join(scratch, 'hello');
  mkdirSync(codeDir);
  writeFileSync(
    join(codeDir, 'index.mjs'),
    'export const handler = async () => ({ statusCode: 200, body: \'{"hello":"world"}\' });\n',
  );
  const outdir = join(scratch, 'url-cdk.out');
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  new LambdaFunction(new Stack(app, 'AbUrl'), 'Hello', {
    code: Code.fromAsset(codeDir),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  }).addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
  app.synth();
  return outdir;
};

/** The project's own assembly: `cdk synth`, unless one is given. */
const restAssembly = async () => {
  if (givenAssembly) return resolve(givenAssembly);
  const outdir = join(scratch, 'cdk.out');
  progress('cdk synth');
  await promisify(execFile)('node_modules/.bin/cdk', ['synth', '--quiet', '--output', outdir], {
    cwd: projectRoot,
    env: { ...process.env, CDK_HOME: join(scratch, '.cdk-home') },
  });
  return outdir;
};

const settings: ServeSettings = { assemblies: { url: urlAssembly(), rest: await restAssembly() }, maxWorkers: 4 };

type Scenario = { name: string; app: 'url' | 'rest'; connections: number };
const allScenarios: Scenario[] = [
  { name: 'function URL, 1 connection', app: 'url', connections: 1 },
  { name: 'function URL, 32 connections', app: 'url', connections: 32 },
  { name: 'REST createPlant, 1 connection', app: 'rest', connections: 1 },
  { name: 'REST createPlant, 32 connections', app: 'rest', connections: 32 },
];
const scenarios = allScenarios.filter(({ name }) => name.includes(process.env.GATEWAY_AB_ONLY ?? ''));
/** Requests per second; the runner's CPU time per request (µs), and the system's share of it (the kernel's work). */
type Figures = { perSecond: number; cpuMicrosPerRequest: number; systemShare: number };
const results = new Map<string, Figures[]>();
let nextId = 8_000_000_000_000 + (Date.now() % 1_000_000) * 1_000_000;

/** One variant's runner process, serving until `stop`. */
const serve = async (dist: string) => {
  const child = fork(join(here, 'gateway-serve.ts'), [dist, JSON.stringify(settings)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<ServeMessage>((resolve, reject) => {
      child.once('message', (message) => resolve(message as ServeMessage));
      child.once('exit', (code) => reject(new Error(`gateway-serve.ts exited with ${code}`)));
    });
  const ready = await next();
  if (ready.type !== 'ready') throw new Error('gateway-serve.ts did not start');
  const cpu = async () => {
    child.send('cpu');
    const answer = await next();
    return answer.type === 'cpu' ? answer : { micros: Number.NaN, systemMicros: Number.NaN };
  };
  const profiled = async (command: string) => {
    child.send(command);
    await next();
  };
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  };
  return { ...ready, cpu, profiled, stop };
};

const load = async (url: string, token: string, { app, connections }: Scenario, time: number) => {
  const args = app === 'url' ? [`${url}/`, '', String(connections), String(time), '0', 'GET'] : [url, token];
  if (app === 'rest') args.push(String(connections), String(time), String(nextId));
  nextId += 1_000_000;
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'http-load.ts'), ...args]);
  return JSON.parse(stdout) as { requests: number; perSecond: number };
};

const measure = async (label: string, dist: string, round: number) => {
  const runner = await serve(dist);
  try {
    for (const scenario of scenarios) {
      const url = runner.urls[scenario.app] as string;
      await load(url, runner.token, scenario, 1); // warm-up: every execution environment started
      if (profileDir) await runner.profiled('profile');
      const before = await runner.cpu();
      const { requests, perSecond } = await load(url, runner.token, scenario, seconds);
      const after = await runner.cpu();
      const cpuMicrosPerRequest = (after.micros - before.micros) / requests;
      const systemShare = (after.systemMicros - before.systemMicros) / (after.micros - before.micros);
      const profileFile = join(
        profileDir ?? '',
        `${label}-${scenario.app}-${scenario.connections}-${round}.cpuprofile`,
      );
      if (profileDir) await runner.profiled(`profiled ${profileFile}`);
      const key = `${scenario.name}|${label}`;
      results.set(key, [...(results.get(key) ?? []), { perSecond, cpuMicrosPerRequest, systemShare }]);
    }
  } finally {
    await runner.stop();
  }
};

const loads: number[] = [];
try {
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    for (const label of order) {
      progress(`round ${round + 1}: ${label} (load average ${loadavg()[0]?.toFixed(1)})`);
      loads.push(loadavg()[0] ?? 0);
      await measure(label, label === 'A' ? resolve(distA) : resolve(distB), round);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const of = (scenario: Scenario, label: string) => results.get(`${scenario.name}|${label}`) ?? [];
/** B/A in each round (each pair ran back to back), and their median. */
const ratios = (scenario: Scenario, pick: (figures: Figures) => number) =>
  of(scenario, 'B').map((b, index) => pick(b) / pick(of(scenario, 'A')[index] as Figures));
const ratio = (scenario: Scenario, pick: (figures: Figures) => number) => {
  const each = ratios(scenario, pick);
  return `${median(each).toFixed(2)} (${each.map((value) => value.toFixed(2)).join(', ')})`;
};
const shown = (figures: Figures[], pick: (figures: Figures) => number, digits: number) =>
  `${median(figures.map(pick)).toFixed(digits)} (${figures.map((f) => pick(f).toFixed(digits)).join(', ')})`;
console.log(
  [
    `A: ${distA}; B: ${distB}; ${rounds} rounds of ${seconds} s, A B / B A alternating; load average ${median(loads).toFixed(1)} (median at each start)`,
    '',
    '| scenario | A req/s (rounds) | B req/s (rounds) | B/A (rounds) | A runner CPU µs/req | B runner CPU µs/req | B/A (rounds) | system share A, B |',
    '|---|---|---|---|---|---|---|---|',
    ...scenarios.map((scenario) => {
      const [a, b] = [of(scenario, 'A'), of(scenario, 'B')];
      const rate = (f: Figures) => f.perSecond;
      const cpu = (f: Figures) => f.cpuMicrosPerRequest;
      const system = (figures: Figures[]) => `${(median(figures.map((f) => f.systemShare)) * 100).toFixed(0)} %`;
      return `| ${scenario.name} | ${shown(a, rate, 0)} | ${shown(b, rate, 0)} | ${ratio(scenario, rate)} | ${shown(a, cpu, 0)} | ${shown(b, cpu, 0)} | ${ratio(scenario, cpu)} | ${system(a)}, ${system(b)} |`;
    }),
  ].join('\n'),
);
