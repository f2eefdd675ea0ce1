// When the start command synthesizes again: cdk.out is stale once one of the project's sources (cdk.json's `watch`
// globs, as `cdk watch` reads them) changed after it, and only then.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { appProjectAt, isUpToDate } from '../../src/app/cloud-assembly.ts';

/**
 * A project whose every file is dated `at` (seconds), with a cloud assembly synthesized at `synthesizedAt`; its
 * cdk.json's `watch` is `watch` (none when undefined).
 */
const projectWith = (at: number, synthesizedAt: number, watch?: object) => {
  const root = mkdtempSync(join(tmpdir(), 'local-runner-freshness-'));
  const files = [
    'lib/stack.ts',
    'lib/local/tool.ts',
    'src/handler.ts',
    'api.yaml',
    'README.md',
    'package-lock.json',
    'node_modules/dep/index.js',
    '.git/HEAD',
  ];
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  writeFileSync(join(root, 'cdk.json'), JSON.stringify({ app: 'node lib/app.ts', ...(watch && { watch }) }));
  for (const path of [...files, 'cdk.json', 'lib/local', 'lib', 'src', 'node_modules/dep', 'node_modules', '.git'])
    utimesSync(join(root, path), at, at);
  mkdirSync(join(root, 'cdk.out'));
  writeFileSync(join(root, 'cdk.out/manifest.json'), '{}');
  utimesSync(join(root, 'cdk.out/manifest.json'), synthesizedAt, synthesizedAt);
  return {
    project: appProjectAt(root),
    cdkOut: join(root, 'cdk.out'),
    touch: (file: string, when: number) => utimesSync(join(root, file), when, when),
  };
};

const watch = { include: ['lib/**', 'src/**', 'api.yaml'], exclude: ['lib/local', 'README.md', 'cdk*.json'] };

test('synthesized after every source: up to date', () => {
  const { project, cdkOut } = projectWith(1_000, 2_000, watch);
  expect(isUpToDate(cdkOut, project)).toBe(true);
});

test.each(['src/handler.ts', 'lib/stack.ts', 'api.yaml', 'lib', 'cdk.json', 'package-lock.json'])(
  '%s changed after the synth: stale (cdk.json and the lock file always count, whatever watch.exclude says)',
  (file) => {
    const { project, cdkOut, touch } = projectWith(1_000, 2_000, watch);
    touch(file, 3_000);
    expect(isUpToDate(cdkOut, project)).toBe(false);
  },
);

test.each(['lib/local/tool.ts', 'lib/local', 'README.md', 'node_modules/dep/index.js', '.git/HEAD'])(
  '%s changed after the synth: still up to date (excluded, or never a source)',
  (file) => {
    const { project, cdkOut, touch } = projectWith(1_000, 2_000, watch);
    touch(file, 3_000);
    expect(isUpToDate(cdkOut, project)).toBe(true);
  },
);

test("no watch in cdk.json: every file is a source (cdk watch's default include), but dependencies and dotfiles", () => {
  const { project, cdkOut, touch } = projectWith(1_000, 2_000);
  expect(project.include).toEqual(['**']);
  touch('node_modules/dep/index.js', 3_000);
  touch('.git/HEAD', 3_000);
  expect(isUpToDate(cdkOut, project)).toBe(true);
  touch('README.md', 3_000);
  expect(isUpToDate(cdkOut, project)).toBe(false);
});

test('watch given as one string, as cdk.json allows', () => {
  const { project } = projectWith(1_000, 2_000, { include: 'lib/**', exclude: 'lib/local' });
  expect(project).toMatchObject({ include: ['lib/**'], exclude: ['lib/local'] });
});

test('a watch that is not globs: named', () => {
  const root = mkdtempSync(join(tmpdir(), 'local-runner-freshness-'));
  writeFileSync(join(root, 'cdk.json'), JSON.stringify({ watch: { include: [1] } }));
  expect(() => appProjectAt(root)).toThrow('cdk.json: watch.include must be a string or a list of strings');
});

test('never synthesized: stale', () => {
  const { project } = projectWith(1_000, 2_000, watch);
  expect(isUpToDate(join(project.root, 'never'), project)).toBe(false);
});

test('synthesized with other context values (start --context): stale, until synthesized with these', () => {
  const { project, cdkOut } = projectWith(1_000, 2_000, watch);
  const withOrigin = { ...project, context: { corsOrigin: 'https://app.example.com' } };
  // A plain synth (a user's `cdk synth`, or the runner's without context) wrote no note: no context.
  expect(isUpToDate(cdkOut, withOrigin)).toBe(false);
  // The runner's synth with the origin noted it beside the manifest.
  writeFileSync(join(cdkOut, 'local-runner-context.json'), JSON.stringify(withOrigin.context));
  utimesSync(join(cdkOut, 'local-runner-context.json'), 2_000, 2_000);
  expect(isUpToDate(cdkOut, withOrigin)).toBe(true);
  expect(isUpToDate(cdkOut, project)).toBe(false);
  // Another synth after the note (the user's own): the note no longer says how cdk.out was made.
  utimesSync(join(cdkOut, 'manifest.json'), 2_500, 2_500);
  expect(isUpToDate(cdkOut, withOrigin)).toBe(false);
  expect(isUpToDate(cdkOut, project)).toBe(true);
});
