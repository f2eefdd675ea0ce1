// `npm run reliability`: the fuzz, attack and fault suites, then the full load (`npm run load`'s), and
// docs/reliability.md written from what they recorded — never by hand. Exits non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';
import { loadProblems } from './checks.ts';
import { runLoad } from './load.ts';

const reportDir = mkdtempSync(join(tmpdir(), 'plant-store-reliability-'));
const suites = [
  'test/functions/create-plant/handler.property.test.ts',
  'test/infra/local/plant-store.property.e2e.test.ts',
  'test/infra/local/auth-attacks.e2e.test.ts',
  'test/infra/local/token-mutations.property.e2e.test.ts',
  'test/infra/local/database-faults.e2e.test.ts',
  'test/infra/local/gateway-semantics.e2e.test.ts',
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
const load = await runLoad({
  seconds: 60,
  connections: 32,
  warmUpSeconds: 10,
  killRounds: 5,
  killAfterCreates: 500,
  log,
});
const problems = loadProblems(load, { memory: true });

type Statuses = Record<string, number>;
const fuzzInProcess = read<{ requests: number; statuses: Statuses }>('fuzz-in-process.json');
const fuzzHttp = read<{ requests: number; statuses: Statuses }>('fuzz-http.json');
const attacks = read<{ attacks: number; reachedCreatePlant: number; attackerFetches: number }>('auth-attacks.json');
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
| the runner's memory (with its execution environments) after the warm-up / at the end, medians of 5 one-second samples | ${load.memory.afterWarmUpMb.toFixed(0)} MB / ${load.memory.atEndMb.toFixed(0)} MB (${(load.memory.growth * 100).toFixed(0)} %; at most 10 %) |
| the database's, which holds every plant stored | ${load.memory.database.afterWarmUpMb.toFixed(0)} MB / ${load.memory.database.atEndMb.toFixed(0)} MB |
| SIGKILL under load and restart, ${load.killRounds.length} rounds | ${acknowledgedInRounds} acknowledged creates, ${lostInRounds} lost |
`,
);
log(`docs/reliability.md written (${passed ? 'passed' : 'FAILED'})`);
process.exit(passed ? 0 : 1);
