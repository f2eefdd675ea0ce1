// `npm run reliability`: the fuzz, attack and fault suites, then the full load (`npm run load`'s), and
// docs/reliability.md written from what they recorded — never by hand. Exits non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';
import { loadProblems, memoryGrowthLimit } from './checks.ts';
import { type ProcessMemory, runLoad } from './load.ts';

const reportDir = mkdtempSync(join(tmpdir(), 'plant-store-reliability-'));
const suites = [
  'test/functions/create-plant/handler.property.test.ts',
  'test/local/plant-store.property.e2e.test.ts',
  'test/functions/bearer-authorizer/route-policy.property.test.ts',
  'test/local/auth-attacks.e2e.test.ts',
  'test/local/token-mutations.property.e2e.test.ts',
  'test/local/database-faults.e2e.test.ts',
  'packages/local-runner/test/gateway/gateway-semantics.e2e.test.ts',
  'test/functions/create-plant/handler-deadline.test.ts',
];
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

log(`suites: ${suites.join(', ')}`);
const jestResults = join(reportDir, 'jest.json');
const jest = spawnSync('npm', ['run', 'jest', '--', '--json', `--outputFile=${jestResults}`, ...suites], {
  cwd: projectRoot,
  env: { ...process.env, PLANT_STORE_REPORT_DIR: reportDir, PLANT_STORE_THOROUGH: '1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const read = <T>(name: string): T | undefined => {
  try {
    return JSON.parse(readFileSync(join(reportDir, name), 'utf8')) as T;
  } catch {
    return undefined;
  }
};
interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
}
const tests = read<JestReport>('jest.json');
log(`suites: ${tests?.numPassedTests ?? 0} passed, ${tests?.numFailedTests ?? 'all'} failed`);

log('full load: 60 s at 32 connections, then 5 SIGKILL rounds');
const warmUpSeconds = 10;
const load = await runLoad({
  seconds: 60,
  connections: 32,
  warmUpSeconds,
  killRounds: 5,
  killAfterCreates: 500,
  log,
});
const problems = loadProblems(load, { memory: true });

type Statuses = Record<string, number>;
const fuzzInProcess = read<{ requests: number; statuses: Statuses }>('fuzz-in-process.json');
const fuzzHttp = read<{ requests: number; statuses: Statuses }>('fuzz-http.json');
const attacks = read<{ attacks: number; reachedCreatePlant: number; attackerFetches: number }>('auth-attacks.json');
const routePolicy = read<{ cases: number; requests: number }>('route-policy.json');
const mutations = read<{ cases: number; statuses: Statuses; serverErrors: number; reachedCreatePlant: number }>(
  'token-mutations.json',
);
const statusList = (statuses: Statuses | undefined) =>
  Object.entries(statuses ?? {})
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
const faultCases = (tests?.testResults ?? [])
  .filter(({ name }) => /database-faults|gateway-semantics|handler-deadline/.test(name))
  .flatMap(({ assertionResults }) => assertionResults)
  .filter(({ fullName }) =>
    /fails|crash|hang|never answers|refuses connections|disk|timeout|times out|deadline|dies/i.test(fullName),
  );
const acknowledgedInRounds = load.killRounds.at(-1)?.acknowledged ?? 0;
const lostInRounds = load.killRounds.reduce((sum, round) => sum + round.missing.length, 0);
const passed = jest.status === 0 && problems.length === 0;
const mb = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(1));
const memoryRow = ({ name, afterWarmUp, atEnd, growth }: ProcessMemory) =>
  [
    name,
    `${mb(afterWarmUp?.liveMb)} MB -> ${mb(atEnd?.liveMb)} MB`,
    growth === undefined ? 'too few samples' : `${(growth * 100).toFixed(1)} %`,
    `${mb(afterWarmUp?.heapMb)} MB -> ${mb(atEnd?.heapMb)} MB`,
    `${mb(afterWarmUp?.rssMb)} MB -> ${mb(atEnd?.rssMb)} MB`,
  ].join(' | ');
const residentTogether = (window: 'afterWarmUp' | 'atEnd') =>
  load.memory.filter(({ kind }) => kind !== 'database').reduce((sum, one) => sum + (one[window]?.rssMb ?? 0), 0);
const together = `${residentTogether('afterWarmUp').toFixed(0)} MB -> ${residentTogether('atEnd').toFixed(0)} MB (${(
  (residentTogether('atEnd') / residentTogether('afterWarmUp') - 1) * 100
).toFixed(0)} %)`;

writeFileSync(
  join(projectRoot, 'docs/reliability.md'),
  `# Reliability: the last full run

Written by \`npm run reliability\` (tools/load/reliability.ts) from what the suites and the load recorded; do not edit
by hand. ${passed ? 'Everything passed.' : `**Failed**: ${[...problems, ...(jest.status === 0 ? [] : ['a suite failed'])].join('; ')}.`}

| | |
|---|---|
| when | ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC |
| machine | ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node} |

## Generated requests (fast-check), judged by an oracle written from the contract

| suite | requests | answers | 5xx |
|---|---|---|---|
| in-process, the real Middy chain on dynalite | ${fuzzInProcess?.requests ?? 'not run'} | ${statusList(fuzzInProcess?.statuses)} | ${Object.entries(fuzzInProcess?.statuses ?? {}).filter(([s]) => Number(s) >= 500).length} |
| over HTTP through the local runner | ${fuzzHttp?.requests ?? 'not run'} | ${statusList(fuzzHttp?.statuses)} | ${Object.entries(fuzzHttp?.statuses ?? {}).filter(([s]) => Number(s) >= 500).length} |

Every answer valid against openapi.yaml, every 200 read back from the table exactly (test/helpers/plant-requests.ts).

## Attacks on authorization (RFC 8725, OWASP API2), over HTTP

${attacks ? `${attacks.attacks} attacks; ${attacks.reachedCreatePlant} reached createPlant; the attacker's server was asked ${attacks.attackerFetches} times. An issuer whose keys are down fails closed (500).` : 'not run'}

## The authorizer's route policy (fast-check), in process

${routePolicy ? `${routePolicy.cases} random route tables with scope claims of every shape, ${routePolicy.requests} requests on paths of every RFC 3986 segment character, cached and uncached: a token reached a route exactly when it held that route's scopes, judged by an IAM matcher of the test's own (test/functions/bearer-authorizer/route-policy.property.test.ts).` : 'not run'}

## Mutated tokens (fast-check), over HTTP

Valid RS256 and ES256 tokens, truncated or extended, characters flipped, base64url padding and alphabet oddities,
ES256 signatures re-encoded (DER, leading zeros, r or s of 0, n or more), parts swapped between tokens, dots added
or removed (test/helpers/token-mutations.ts); each must be a 401.

${mutations ? `${mutations.cases} mutated tokens; answers ${statusList(mutations.statuses)}; ${mutations.serverErrors} 5xx; ${mutations.reachedCreatePlant} reached createPlant.` : 'not run'}

## Faults

${faultCases.map(({ fullName, status }) => `- ${status === 'passed' ? 'passed' : '**failed**'}: ${fullName}`).join('\n')}

## Load (60 s at 32 connections: ~70 % new ids, 15 % exact retries, 10 % conflicts, 5 % invalid)

| | |
|---|---|
| requests | ${load.requests} (${load.requestsPerSecond.toFixed(0)} per second) |
| answers | ${statusList(load.statuses)} |
| 5xx, socket errors, unexpected statuses | ${load.serverErrors}, ${load.socketErrors}, ${load.unexpected.length} |
| plants answered 200 / in the table / missing / extra | ${load.acknowledged} / ${load.stored} / ${load.missing.length} / ${load.extra.length} |
| SIGKILL under load and restart, ${load.killRounds.length} rounds | ${acknowledgedInRounds} acknowledged creates, ${lostInRounds} lost |

### Memory, each process after a full garbage collection

Every 2 s, each process of the runner (the runner, its database, each execution environment) collects all its garbage
(\`gc()\`) and reports its memory (tools/load/memory-probe.mjs). The figures are medians of the 5 samples after the
${warmUpSeconds} s warm-up and of the last 5. What a leak grows is the live memory, heap used plus external (Buffers)
after the collection: each process's may grow ${memoryGrowthLimit * 100} % at most. The heap V8 holds and the resident
memory are reported, not judged: V8 doubles a busy young generation toward its limit and keeps the pages it may use
again, so resident memory grows with nothing kept alive. The database's also grows outside its heap, in LevelDB's
native code, which no probe in JavaScript sees.

| process | live memory after GC | growth | heap held | resident |
|---|---|---|---|---|
${load.memory.map((one) => `| ${memoryRow(one)} |`).join('\n')}
| the runner and its execution environments together | | | | ${together} |
`,
);
log(`docs/reliability.md written (${passed ? 'passed' : 'FAILED'})`);
process.exit(passed ? 0 : 1);
