// The dependency rule, as `npm run lint` holds it with knip (package.json, "knip"): `dependencies` are what deploys
// imports (the functions' handlers and the CDK app, knip's production entries), everything else is a devDependency,
// and nothing listed or exported goes unused. Each wrong change is made in a copy of the project and must fail.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';

type Manifest = { dependencies: Record<string, string>; devDependencies: Record<string, string> };
type KnipReport = { issues: { file: string; dependencies?: { name: string }[]; exports?: { name: string }[] }[] };

let copy = '';

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'plant-store-knip-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: projectRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) cpSync(join(projectRoot, file), join(copy, file), { recursive: true });
  for (const modules of ['node_modules', 'examples/typed-client/node_modules']) {
    symlinkSync(join(projectRoot, modules), join(copy, modules));
  }
});

afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** knip's findings in the copy after `change`, undone afterwards: `dependency name` or `export file name`. */
const findings = (change: { file: string; edit: (text: string) => string }, production = false) => {
  const path = join(copy, change.file);
  const original = readFileSync(path, 'utf8');
  writeFileSync(path, change.edit(original));
  try {
    const { stdout, stderr } = spawnSync(
      join(projectRoot, 'node_modules/.bin/knip'),
      ['--reporter', 'json', ...(production ? ['--production', '--dependencies'] : [])],
      { cwd: copy, encoding: 'utf8' },
    );
    if (!stdout) throw new Error(`knip printed nothing: ${stderr}`);
    return (JSON.parse(stdout) as KnipReport).issues.flatMap(({ file, dependencies, exports }) => [
      ...(dependencies ?? []).map(({ name }) => `dependency ${name}`),
      ...(exports ?? []).map(({ name }) => `export ${file} ${name}`),
    ]);
  } finally {
    writeFileSync(path, original);
  }
};

const editManifest = (edit: (manifest: Manifest) => void) => ({
  file: 'package.json',
  edit: (text: string) => {
    const manifest = JSON.parse(text) as Manifest;
    edit(manifest);
    return JSON.stringify(manifest, null, 2);
  },
});

test('the project as it is passes, in both modes', () => {
  const unchanged = { file: 'package.json', edit: (text: string) => text };
  expect(findings(unchanged)).toEqual([]);
  expect(findings(unchanged, true)).toEqual([]);
});

test('an export nobody imports fails', () => {
  expect(
    findings({
      file: 'functions/create-plant/create-plant.ts',
      edit: (text) => `${text}\nexport const nobodyImportsThis = 1;\n`,
    }),
  ).toEqual(['export functions/create-plant/create-plant.ts nobodyImportsThis']);
});

test('a dependency nobody imports fails', () => {
  expect(
    findings(
      editManifest(({ dependencies }) => {
        dependencies['left-pad'] = '^1.3.0';
      }),
    ),
  ).toEqual(['dependency left-pad']);
});

test('a dependency only the runner and tests import fails the production check: it is a devDependency', () => {
  expect(
    findings(
      editManifest((manifest) => {
        manifest.dependencies.jose = manifest.devDependencies.jose ?? '';
        delete manifest.devDependencies.jose;
      }),
      true,
    ),
  ).toEqual(['dependency jose']);
});
