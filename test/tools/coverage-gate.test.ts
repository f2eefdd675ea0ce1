import { expect, test } from '@jest/globals';
import { type CoverageSummary, coverageGate, floors } from '../../tools/coverage-gate.ts';

const root = '/project';
const counts = (covered: number, total: number, branches = [total, total]) => ({
  lines: { covered, total },
  statements: { covered, total },
  functions: { covered: total, total },
  branches: { covered: branches[0] ?? 0, total: branches[1] ?? 0 },
});

test('every area at or above its floors: nothing to say', () => {
  const summary: CoverageSummary = {
    total: counts(0, 0),
    '/project/functions/a.ts': counts(100, 100),
    '/project/infra/b.ts': counts(95, 100),
  };
  expect(coverageGate(summary, root)).toEqual([]);
});

test('an area below a floor is named with the measure, the figure, and its files below the floor, worst first', () => {
  const summary: CoverageSummary = {
    '/project/infra/well-tested.ts': counts(990, 1000),
    '/project/infra/local/untested.ts': counts(0, 100),
    '/project/infra/half.ts': counts(50, 100),
    '/project/functions/a.ts': counts(100, 100),
  };
  // infra/: 1040 of 1200 lines = 86.7 %.
  expect(coverageGate(summary, root)).toEqual([
    `infra/ lines: 86.7 %, below the floor of ${floors['infra/']?.lines} %. Files below it:\n  infra/local/untested.ts: 0.0 %\n  infra/half.ts: 50.0 %`,
    `infra/ statements: 86.7 %, below the floor of ${floors['infra/']?.statements} %. Files below it:\n  infra/local/untested.ts: 0.0 %\n  infra/half.ts: 50.0 %`,
  ]);
});

test('each measure is judged apart: branches alone below the floor', () => {
  const summary: CoverageSummary = { '/project/functions/a.ts': counts(100, 100, [10, 20]) };
  expect(coverageGate(summary, root)).toEqual([
    `functions/ branches: 50.0 %, below the floor of ${floors['functions/']?.branches} %. Files below it:\n  functions/a.ts: 50.0 %`,
  ]);
});
