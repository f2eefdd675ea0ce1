// The short load run of `npm test` (the full one is `npm run load`): 4 s at 8 connections on the runner in its own
// process, then 2 rounds of SIGKILL under load and a restart on the same data folder. Memory is judged by the full
// run only: 10 s is too short a baseline. Then a runner made to leak, which the memory check must name process by
// process.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { loadProblems } from '../../../tools/load/checks.ts';
import { runLoad } from '../../../tools/load/load.ts';

test('4 s at 8 connections: no 5xx or socket error, every answer as expected, the table holds exactly the 200s; no acknowledged create lost to SIGKILL', async () => {
  const result = await runLoad({ seconds: 4, connections: 8, warmUpSeconds: 2, killRounds: 2, killAfterCreates: 50 });

  expect(loadProblems(result, { memory: false })).toEqual([]);
  expect(result.byKind.create).toBeGreaterThan(0);
  expect(result.byKind.retry + result.byKind.conflict + result.byKind.invalid).toBeGreaterThan(0);
  expect(result.killRounds).toHaveLength(2);
  // Its data folders are gone with it.
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith('plant-store-load-'))).toEqual([]);
}, 180_000);

test('a runner made to leak fails the memory check, which names the processes that leak and no other', async () => {
  // fixtures/leak.mjs: each execution environment keeps heap, the runner Buffers, both by time, the database
  // nothing. Samples every 0.5 s: 10 after the warm-up are the fewest the check judges; on a busy machine a sample
  // takes longer, and the load goes on until there are 10 (untilJudged). Two connections: the leak needs no more.
  const result = await runLoad({
    seconds: 6,
    untilJudged: true,
    sampleEverySeconds: 0.5,
    connections: 2,
    warmUpSeconds: 1,
    killRounds: 0,
    killAfterCreates: 0,
    imports: [join(import.meta.dirname, 'fixtures', 'leak.mjs')],
  });

  const leaking = loadProblems(result, { memory: true })
    .filter((problem) => problem.includes('its live memory after GC grew'))
    .map((problem) => problem.slice(0, problem.indexOf(':')));
  expect(leaking).toContain('runner');
  // An environment is named by its function's Lambda name (<stack>-<logical id>-<random>), then its pid.
  expect(leaking.some((name) => /-CreatePlantFunction[0-9A-F]*-\w+ \d+$/.test(name))).toBe(true);
  // Judged, and not named.
  expect(result.memory.find(({ name }) => name === 'database')?.growth).toBeDefined();
  expect(leaking).not.toContain('database');
}, 120_000);
