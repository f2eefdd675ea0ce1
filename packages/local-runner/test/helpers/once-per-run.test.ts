// oncePerRun: an app synthesized once per run, each caller given a copy of its own.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test } from '@jest/globals';
import { oncePerRun } from './once-per-run.ts';

/** A stand-in for a fixture's synthesis: a new `cdk.out` holding a manifest naming `by`, counting its calls. */
const counted = (by = 'synthesis') => {
  const made: string[] = [];
  const synthesize = () => {
    const outdir = join(mkdtempSync(join(tmpdir(), 'local-runner-once-')), 'cdk.out');
    mkdirSync(outdir);
    writeFileSync(join(outdir, 'manifest.json'), `{"by":"${by}","call":${made.length + 1}}`);
    made.push(outdir);
    return outdir;
  };
  return { made, synthesize };
};

test('synthesizes once under a key, and answers each call a folder of its own, named as the synthesis names it', () => {
  const key = `once-${randomUUID()}`;
  const { made, synthesize } = counted();

  const first = oncePerRun(key, synthesize);
  const second = oncePerRun(key, synthesize);

  expect(made).toHaveLength(1);
  expect(second).not.toBe(first);
  expect([basename(first), basename(second)]).toEqual(['cdk.out', 'cdk.out']);
  expect(readFileSync(join(second, 'manifest.json'), 'utf8')).toBe('{"by":"synthesis","call":1}');
  // A caller that removes its copy (as a file's afterAll does) leaves the next one whole.
  rmSync(first, { recursive: true });
  expect(readFileSync(join(oncePerRun(key, synthesize), 'manifest.json'), 'utf8')).toBe('{"by":"synthesis","call":1}');
  expect(made).toHaveLength(1);
});

test('a synthesis that finishes second (another worker kept its own first) answers the kept one', () => {
  const key = `once-${randomUUID()}`;
  const other = counted('other worker');
  const late = {
    synthesize: () => {
      // Another worker keeps its result while this one synthesizes.
      oncePerRun(key, other.synthesize);
      return counted('late').synthesize();
    },
  };

  const answered = oncePerRun(key, late.synthesize);

  expect(other.made).toHaveLength(1);
  const kept = '{"by":"other worker","call":1}';
  expect(readFileSync(join(answered, 'manifest.json'), 'utf8')).toBe(kept);
  expect(readFileSync(join(oncePerRun(key, other.synthesize), 'manifest.json'), 'utf8')).toBe(kept);
});
