// `npm run load`: the full load on the local runner (60 s at 32 connections, 5 SIGKILL rounds), its checks, and the
// result as JSON (to --report-dir, for docs/reliability.md). Exits non-zero when a check fails. `--import FILE` has
// every process of the measured runner import FILE first: `--import test/tools/load/fixtures/leak.mjs` makes it leak.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadProblems } from './checks.ts';
import { runLoad } from './load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '32' },
    'warm-up': { type: 'string', default: '10' },
    'kill-rounds': { type: 'string', default: '5' },
    'kill-after': { type: 'string', default: '500' },
    'report-dir': { type: 'string' },
    import: { type: 'string', multiple: true, default: [] },
  },
});
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const result = await runLoad({
  seconds: Number(values.seconds),
  connections: Number(values.connections),
  warmUpSeconds: Number(values['warm-up']),
  killRounds: Number(values['kill-rounds']),
  killAfterCreates: Number(values['kill-after']),
  imports: values.import.map((file) => resolve(file)),
  log,
});
const problems = loadProblems(result, { memory: true });
// Each process's memory samples go to load.json alone: the output keeps the figures judged.
const memory = result.memory.map(({ samples, ...figures }) => ({ ...figures, samples: samples.length }));
console.log(JSON.stringify({ ...result, unexpected: result.unexpected.slice(0, 20), memory }, null, 2));
if (values['report-dir']) {
  mkdirSync(values['report-dir'], { recursive: true });
  writeFileSync(
    join(values['report-dir'], 'load.json'),
    `${JSON.stringify({ suite: 'load', seconds: Number(values.seconds), connections: Number(values.connections), ...result, problems }, null, 2)}\n`,
  );
}
if (problems.length > 0) {
  console.error(`load: ${problems.length} check(s) failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
log('load: every check passed');
