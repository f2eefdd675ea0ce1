// An A/B of the runner's gateway on a busy machine: two builds of cdk-local-runner (two `dist` folders: a copy of the
// build before a change, and the working tree's) serve the same apps in turn, A B, B A, A B..., each round a fresh
// runner process (gateway-serve.ts) under the bench's closed-loop load (http-load.ts) at 1 and 32 connections: a
// function URL in front of a hello-world function (the gateway and one hand-over), and the project's REST API
// (createPlant behind its TOKEN authorizer, stored in dynalite), each REST load followed by the same load on the
// in-process ceiling (ceiling-serve.ts: node:http straight into the createPlant bundle, against that runner's database).
// For each: requests per second, and the CPU time per request of every process serving (process-cpu.ts: the runner's
// process, its execution environments, the database; the ceiling's process and the database), which moves less than
// throughput when other work shares the CPU; on a CPU-bound machine, throughput follows its inverse.
// Usage: node tools/bench/gateway-ab.ts <dist A> <dist B> [rounds (4)] [seconds (3)] [cloud assembly of the project]
// A copy of a build stays beside the package's own (`cp -r packages/local-runner/dist packages/local-runner/dist-a`,
// removed after), so that it resolves the same dependencies. GATEWAY_AB_ONLY=<text>: only the scenarios whose name
// contains it. GATEWAY_AB_WARM_UP=<seconds>: each load's warm-up (1 s). GATEWAY_AB_PROFILE=<folder>: a CPU profile of the runner's process during each load, written there
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
import { type Role, type TreeTimes, timesByRole, treeTimes } from './process-cpu.ts';
import { median } from './statistics.ts';

const here = new URL('./', import.meta.url).pathname;
const [distA = '', distB = '', roundsText = '4', secondsText = '3', givenAssembly] = process.argv.slice(2);
if (!distA || !distB) throw new Error('usage: gateway-ab.ts <dist A> <dist B> [rounds] [seconds] [cloud assembly]');
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const warmUpSeconds = Number(process.env.GATEWAY_AB_WARM_UP ?? '1');
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
/**
 * Requests per second; the CPU time per request (µs) of every process serving, by role (process-cpu.ts: the runner's
 * process, its execution environments, the database; for the ceiling, its one process as `runner`), their total, and
 * the system's share of that total (the kernel's work).
 */
type Figures = { perSecond: number; micros: Partial<Record<Role, number>>; total: number; systemShare: number };
const results = new Map<string, Figures[]>();
let nextId = 8_000_000_000_000 + (Date.now() % 1_000_000) * 1_000_000;

/** A forked process that says it is ready over IPC, and stops when told. */
const forked = async <Ready>(file: string, args: string[]) => {
  const child = fork(join(here, file), args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<Ready>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Ready));
      child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    });
  const ready = await next();
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  };
  return { child, next, ready, stop };
};

/** One variant's runner process, serving until `stop`. */
const serve = async (dist: string) => {
  const { child, next, ready, stop } = await forked<ServeMessage>('gateway-serve.ts', [dist, JSON.stringify(settings)]);
  if (ready.type !== 'ready') throw new Error('gateway-serve.ts did not start');
  const profiled = async (command: string) => {
    child.send(command);
    await next();
  };
  return { ...ready, pid: child.pid ?? 0, profiled, stop };
};

const load = async (url: string, token: string, { app, connections }: Scenario, time: number) => {
  const args = app === 'url' ? [`${url}/`, '', String(connections), String(time), '0', 'GET'] : [url, token];
  if (app === 'rest') args.push(String(connections), String(time), String(nextId));
  nextId += 1_000_000;
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'http-load.ts'), ...args]);
  return JSON.parse(stdout) as { requests: number; perSecond: number };
};

/**
 * The load's figures, after a warm-up (every execution environment started): `readings` reads the CPU time of the
 * processes serving (before the load, then after it); `started` runs once the warm-up is over.
 */
const loaded = async (
  url: string,
  token: string,
  scenario: Scenario,
  readings: () => TreeTimes[],
  started = async () => {},
) => {
  await load(url, token, scenario, warmUpSeconds);
  await started();
  const before = readings();
  const { requests, perSecond } = await load(url, token, scenario, seconds);
  const after = readings();
  const micros: Partial<Record<Role, number>> = {};
  let total = 0;
  let system = 0;
  after.forEach((times, index) => {
    for (const [role, spent] of timesByRole(before[index] ?? new Map(), times)) {
      micros[role] = (micros[role] ?? 0) + spent.micros / requests;
      total += spent.micros / requests;
      system += spent.systemMicros / requests;
    }
  });
  return { perSecond, micros, total, systemShare: system / total };
};

const record = (key: string, figures: Figures) => results.set(key, [...(results.get(key) ?? []), figures]);

/**
 * The ceiling (ceiling-serve.ts) under the scenario's load, against this runner's database: its process and the
 * database counted.
 */
const measureCeiling = async (runner: Awaited<ReturnType<typeof serve>>, scenario: Scenario, label: string) => {
  const ceiling = await forked<{ url: string }>('ceiling-serve.ts', [JSON.stringify(runner.ceiling)]);
  try {
    const database = () => {
      const times = treeTimes(runner.pid);
      for (const [pid, { role }] of times) if (role !== 'database') times.delete(pid);
      return times;
    };
    const figures = await loaded(ceiling.ready.url, '', scenario, () => [
      treeTimes(ceiling.child.pid ?? 0),
      database(),
    ]);
    record(`${scenario.name}|ceiling ${label}`, figures);
  } finally {
    await ceiling.stop();
  }
};

const measure = async (label: string, dist: string, round: number) => {
  const runner = await serve(dist);
  try {
    for (const scenario of scenarios) {
      const url = runner.urls[scenario.app] as string;
      const figures = await loaded(
        url,
        runner.token,
        scenario,
        () => [treeTimes(runner.pid)],
        async () => {
          if (profileDir) await runner.profiled('profile');
        },
      );
      const profileFile = join(
        profileDir ?? '',
        `${label}-${scenario.app}-${scenario.connections}-${round}.cpuprofile`,
      );
      if (profileDir) await runner.profiled(`profiled ${profileFile}`);
      record(`${scenario.name}|${label}`, figures);
      if (scenario.app === 'rest' && runner.ceiling) await measureCeiling(runner, scenario, label);
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
/** x/y in each round (each pair ran back to back), and their median. */
const ratio = (xs: Figures[], ys: Figures[], pick: (figures: Figures) => number) => {
  const each = xs.map((x, index) => pick(x) / pick(ys[index] as Figures));
  return `${median(each).toFixed(2)} (${each.map((value) => value.toFixed(2)).join(', ')})`;
};
const shown = (figures: Figures[], pick: (figures: Figures) => number, digits: number) =>
  `${median(figures.map(pick)).toFixed(digits)} (${figures.map((f) => pick(f).toFixed(digits)).join(', ')})`;
const rate = (f: Figures) => f.perSecond;
const cpu = (f: Figures) => f.total;
const roles: Role[] = ['runner', 'environments', 'database', 'other'];
const row = (scenario: Scenario, label: string) => {
  const figures = of(scenario, label);
  const byRole = roles.map((role) => median(figures.map((f) => f.micros[role] ?? 0)).toFixed(0));
  const system = (median(figures.map((f) => f.systemShare)) * 100).toFixed(0);
  return `| ${scenario.name} | ${label} | ${shown(figures, rate, 0)} | ${shown(figures, cpu, 0)} | ${byRole.join(' | ')} | ${system} % |`;
};
const hasCeiling = (scenario: Scenario) => of(scenario, 'ceiling A').length > 0;
console.log(
  [
    `A: ${distA}; B: ${distB}; ${rounds} rounds of ${seconds} s, A B / B A alternating (each runner's ceiling after it); load average ${median(loads).toFixed(1)} (median at each start)`,
    '',
    '| scenario | serving | req/s (rounds) | CPU µs/req, all processes (rounds) | runner | environments | database | other | system share |',
    '|---|---|---|---|---|---|---|---|---|',
    ...scenarios.flatMap((scenario) =>
      ['A', 'B', ...(hasCeiling(scenario) ? ['ceiling A', 'ceiling B'] : [])].map((label) => row(scenario, label)),
    ),
    '',
    '| scenario | B/A req/s | B/A CPU | A/ceiling req/s | B/ceiling req/s | ceiling/A CPU | ceiling/B CPU |',
    '|---|---|---|---|---|---|---|',
    ...scenarios.map((scenario) => {
      const [a, b] = [of(scenario, 'A'), of(scenario, 'B')];
      const [ca, cb] = [of(scenario, 'ceiling A'), of(scenario, 'ceiling B')];
      const versus = hasCeiling(scenario)
        ? [ratio(a, ca, rate), ratio(b, cb, rate), ratio(ca, a, cpu), ratio(cb, b, cpu)]
        : ['', '', '', ''];
      return `| ${scenario.name} | ${ratio(b, a, rate)} | ${ratio(b, a, cpu)} | ${versus.join(' | ')} |`;
    }),
  ].join('\n'),
);
