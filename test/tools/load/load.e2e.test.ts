// The short load run of `npm test` (the full one is `npm run load`): 10 s at 8 connections on the runner in its own
// process, then 2 rounds of SIGKILL under load and a restart on the same data folder. Memory is judged by the full
// run only: 10 s is too short a baseline.
import { expect, test } from '@jest/globals';
import { loadProblems } from '../../../tools/load/checks.ts';
import { runLoad } from '../../../tools/load/load.ts';

test('10 s at 8 connections: no 5xx or socket error, every answer as expected, the table holds exactly the 200s; no acknowledged create lost to SIGKILL', async () => {
  const result = await runLoad({ seconds: 10, connections: 8, warmUpSeconds: 5, killRounds: 2, killAfterCreates: 50 });

  expect(loadProblems(result, { memory: false })).toEqual([]);
  expect(result.byKind.create).toBeGreaterThan(0);
  expect(result.byKind.retry + result.byKind.conflict + result.byKind.invalid).toBeGreaterThan(0);
  expect(result.killRounds).toHaveLength(2);
}, 180_000);
