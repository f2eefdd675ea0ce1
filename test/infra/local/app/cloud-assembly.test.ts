// When `npm start` synthesizes again: cdk.out is stale once anything a synth reads changed after it, and only then.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { isUpToDate } from '../../../../infra/local/app/cloud-assembly.ts';
import { appProject } from '../../../../infra/local/cli/product.ts';

/** A project whose every file is dated `at` (seconds), with a cloud assembly synthesized at `synthesizedAt`. */
const project = (at: number, synthesizedAt: number) => {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-freshness-'));
  const files = [
    'infra/app.ts',
    'infra/local/cli/start.ts',
    'functions/create-plant/handler.ts',
    'openapi.yaml',
    'cdk.json',
    'package-lock.json',
  ];
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  for (const path of [...files, 'infra/local', 'infra', 'functions/create-plant', 'functions'])
    utimesSync(join(root, path), at, at);
  mkdirSync(join(root, 'cdk.out'));
  writeFileSync(join(root, 'cdk.out/manifest.json'), '{}');
  utimesSync(join(root, 'cdk.out/manifest.json'), synthesizedAt, synthesizedAt);
  return {
    root,
    cdkOut: join(root, 'cdk.out'),
    touch: (file: string, when: number) => utimesSync(join(root, file), when, when),
  };
};

test('synthesized after every source: up to date', () => {
  const { root, cdkOut } = project(1_000, 2_000);
  expect(isUpToDate(cdkOut, { ...appProject, root })).toBe(true);
});

test.each(['functions/create-plant/handler.ts', 'infra/app.ts', 'openapi.yaml', 'cdk.json', 'package-lock.json'])(
  '%s changed after the synth: stale',
  (file) => {
    const { root, cdkOut, touch } = project(1_000, 2_000);
    touch(file, 3_000);
    expect(isUpToDate(cdkOut, { ...appProject, root })).toBe(false);
  },
);

test('the runner itself (infra/local) changed: still up to date, it is not part of the app', () => {
  const { root, cdkOut, touch } = project(1_000, 2_000);
  touch('infra/local/cli/start.ts', 3_000);
  touch('infra/local', 3_000);
  expect(isUpToDate(cdkOut, { ...appProject, root })).toBe(true);
});

test('never synthesized: stale', () => {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-freshness-'));
  expect(isUpToDate(join(root, 'cdk.out'), { ...appProject, root })).toBe(false);
});

test('synthesized with other context values (npm start --cors-origin): stale, until synthesized with these', () => {
  const { root, cdkOut } = project(1_000, 2_000);
  const withOrigin = { ...appProject, root, context: { corsOrigin: 'https://app.example.com' } };
  // A plain synth (a user's `cdk synth`, or the runner's without context) wrote no note: no context.
  expect(isUpToDate(cdkOut, withOrigin)).toBe(false);
  // The runner's synth with the origin noted it beside the manifest.
  writeFileSync(join(cdkOut, 'local-runner-context.json'), JSON.stringify(withOrigin.context));
  utimesSync(join(cdkOut, 'local-runner-context.json'), 2_000, 2_000);
  expect(isUpToDate(cdkOut, withOrigin)).toBe(true);
  expect(isUpToDate(cdkOut, { ...appProject, root })).toBe(false);
  // Another synth after the note (the user's own): the note no longer says how cdk.out was made.
  utimesSync(join(cdkOut, 'manifest.json'), 2_500, 2_500);
  expect(isUpToDate(cdkOut, withOrigin)).toBe(false);
  expect(isUpToDate(cdkOut, { ...appProject, root })).toBe(true);
});
