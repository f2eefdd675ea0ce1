// The coverage floors (jest.config.js's coverageThreshold) as `npm test` applies them: jest run over a small project,
// with the project's own thresholds, judges each folder's total, not each file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';

type Thresholds = Record<string, unknown>;
/** jest.config.js's coverageThreshold: the project's floors; and its coverage provider, which counts. */
let floors: Thresholds = {};
let provider = '';

/** A module of `count` one-line functions, each exported. */
const functions = (count: number) =>
  Array.from({ length: count }, (_, index) => `exports.f${index} = () => ${index};\n`).join('');
/** A test calling the first `called` functions of each module. */
const calls = (modules: Record<string, number>) => {
  const lines = Object.entries(modules).flatMap(([path, called], module) => [
    `const m${module} = require('./${path}');`,
    ...Array.from({ length: called }, (_, index) => `m${module}.f${index}();`),
  ]);
  return `${lines.join('\n')}\ntest('calls', () => {});\n`;
};

let dir = '';
beforeAll(async () => {
  const config = (await import(join(projectRoot, 'jest.config.js'))) as {
    default: { coverageThreshold: Thresholds; coverageProvider: string };
  };
  floors = config.default.coverageThreshold;
  provider = config.default.coverageProvider;
  dir = mkdtempSync(join(tmpdir(), 'plant-store-coverage-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** jest with coverage over `files` (path -> text) in a folder of their own: its exit status and its output. */
const coverage = (name: string, files: Record<string, string>, thresholds?: Thresholds) => {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const { status, stdout, stderr } = spawnSync(
    join(projectRoot, 'node_modules/.bin/jest'),
    [
      '--config',
      JSON.stringify({
        rootDir: root,
        testEnvironment: 'node',
        transform: {},
        coverageProvider: provider,
        collectCoverageFrom: ['functions/**/*.js', 'infra/**/*.js', 'packages/**/*.js'],
        coverageReporters: ['text-summary'],
        coverageThreshold: thresholds ?? floors,
      }),
      '--coverage',
      '--no-watchman',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return { status, output: `${stdout}${stderr}` };
};

/** A fully tested file in each folder the floors name but functions/ (the runner's too), and the test calling them. */
const otherFolders = { 'infra/tested.js': 10, 'packages/local-runner/src/tested.js': 10 };
const othersTested = Object.fromEntries(Object.entries(otherFolders).map(([path, count]) => [path, functions(count)]));

const oneFileBelow = {
  'functions/well-tested.js': functions(40),
  'functions/half-tested.js': functions(2),
  ...othersTested,
  'calls.test.js': calls({ 'functions/well-tested.js': 40, 'functions/half-tested.js': 1, ...otherFolders }),
};

test("a file below the floor passes while its folder's total reaches it", () => {
  const { status, output } = coverage('total-reached', oneFileBelow);
  expect(output).not.toMatch(/threshold/);
  expect(status).toBe(0);
});

test('keyed by a glob instead, the same floors would judge each file alone', () => {
  const byFile = Object.fromEntries(Object.entries(floors).map(([folder, floors]) => [`${folder}**/*.js`, floors]));
  const { status, output } = coverage('by-file', oneFileBelow, byFile);
  expect(output).toMatch(
    /Coverage for functions \(50%\) does not meet ".*\/functions\/half-tested\.js" threshold \(95%\)/,
  );
  expect(status).toBe(1);
});

test('a folder whose total is below a floor fails the run, naming the folder and the measure', () => {
  const { status, output } = coverage('total-below', {
    'functions/well-tested.js': functions(40),
    'functions/untested.js': functions(10),
    ...othersTested,
    'calls.test.js': calls({ 'functions/well-tested.js': 40, ...otherFolders }),
  });
  expect(output).toMatch(/Coverage for lines \(80%\) does not meet "\.\/functions\/" threshold \(95%\)/);
  expect(output).not.toMatch(/"\.\/infra\/" threshold/);
  expect(status).toBe(1);
});
