// The boundaries of the folder tree, as `npm run lint` enforces them (biome.json, noRestrictedImports): each wrong
// import is written into a copy of the layout and linted with the project's own configuration.
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';
import { lintImports, otherFunctionMessage as otherFunction } from './helpers/lint.ts';

const stackAlone =
  'The deployed stack never imports the local runner: deleting infra/local/ breaks nothing that deploys (docs/local-runner.md).';

test('a wrong import of each kind fails lint, naming the rule it breaks', () => {
  expect(
    lintImports({
      'functions/create-plant/into-infra.ts': '../../infra/local/metadata.ts',
      'functions/create-plant/into-other-function.ts': '../bearer-authorizer/variable-names.ts',
      'functions/bearer-authorizer/into-other-function.ts': '../create-plant/config.ts',
      'functions/commons/into-a-function.ts': '../create-plant/config.ts',
      'infra/local/into-functions.ts': '../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/cli/into-functions.ts': '../../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/into-cli.ts': './cli/options.ts',
      'infra/local/gateway/into-cli.ts': '../cli/options.ts',
      'infra/constructs/into-runner.ts': '../local/app/template.ts',
      'infra/into-runner.ts': './local/local-api.ts',
    }).sort(),
  ).toEqual([
    "functions/bearer-authorizer/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    "functions/commons/into-a-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    'functions/create-plant/into-infra.ts: functions/ never imports infra/: the Lambda code stands alone (README, Architecture).',
    "functions/create-plant/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    `infra/constructs/into-runner.ts: ${stackAlone}`,
    `infra/into-runner.ts: ${stackAlone}`,
    'infra/local/cli/into-functions.ts: The local runner serves any synthesized app from its template alone: it imports nothing from functions/ (docs/local-runner.md).',
    "infra/local/gateway/into-cli.ts: The runner's core serves any app: it never imports infra/local/cli/, where this product's names, folders and words live (docs/local-runner.md).",
    "infra/local/into-cli.ts: The runner's core serves any app: it never imports infra/local/cli/, where this product's names, folders and words live (docs/local-runner.md).",
    'infra/local/into-functions.ts: The local runner serves any synthesized app from its template alone: it imports nothing from functions/ (docs/local-runner.md).',
  ]);
});

test('the boundary holds for a function folder no rule names: one this test creates, at every depth', () => {
  expect(
    lintImports({
      'functions/new-operation/handler.ts': '../commons/errors.ts',
      'functions/new-operation/into-create-plant.ts': '../create-plant/config.ts',
      'functions/create-plant/into-new-operation.ts': '../new-operation/handler.ts',
      'functions/new-operation/into-infra.ts': '../../infra/app.ts',
      'functions/new-operation/logic/into-authorizer.ts': '../../bearer-authorizer/config.ts',
      'functions/new-operation/logic/deeper/into-commons.ts': '../../../commons/errors.ts',
      'functions/new-operation/logic/deeper/still/into-create-plant.ts': '../../../../create-plant/config.ts',
      'functions/commons/contract/into-new-operation.ts': '../../new-operation/handler.ts',
      // Its own folders, at any depth, are its own.
      'functions/new-operation/logic/own.ts': '../handler.ts',
      'functions/new-operation/logic/deeper/own.ts': '../../logic/own.ts',
    }).sort(),
  ).toEqual([
    `functions/commons/contract/into-new-operation.ts: ${otherFunction}`,
    `functions/create-plant/into-new-operation.ts: ${otherFunction}`,
    `functions/new-operation/into-create-plant.ts: ${otherFunction}`,
    'functions/new-operation/into-infra.ts: functions/ never imports infra/: the Lambda code stands alone (README, Architecture).',
    `functions/new-operation/logic/deeper/still/into-create-plant.ts: ${otherFunction}`,
    `functions/new-operation/logic/into-authorizer.ts: ${otherFunction}`,
  ]);
});

test('no file under a functions/ tree is deeper than the boundary rules reach (biome.json has one per depth)', () => {
  const globs = (
    JSON.parse(readFileSync(join(projectRoot, 'biome.json'), 'utf8')) as { overrides: { includes: string[] }[] }
  ).overrides.flatMap(({ includes }) => includes.filter((glob) => glob.startsWith('**/functions/')));
  // '**/functions/*/*' reaches a file one folder below functions/: two segments.
  const deepestRule = Math.max(...globs.map((glob) => glob.slice('**/functions/'.length).split('/').length));
  for (const tree of ['functions', 'test/fixtures/extended-app/functions']) {
    const files = readdirSync(join(projectRoot, tree), { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    const segments = (entry: Dirent) =>
      relative(join(projectRoot, tree), join(entry.parentPath, entry.name)).split('/').length;
    expect(files.length).toBeGreaterThan(0);
    // Named by its tree when it fails.
    expect({ tree, withinTheRules: Math.max(...files.map(segments)) <= deepestRule }).toEqual({
      tree,
      withinTheRules: true,
    });
  }
});

test('the imports the architecture allows pass', () => {
  expect(
    lintImports({
      'functions/create-plant/own.ts': './config.ts',
      'functions/create-plant/commons.ts': '../commons/errors.ts',
      'infra/constructs/function.ts': '../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/own.ts': './app/template.ts',
      'infra/local/gateway/sibling.ts': '../lambda/pool.ts',
      'infra/local/cli/into-core.ts': '../local-api.ts',
      'infra/constructs/metadata.ts': '../local-runner-metadata.ts',
      'infra/local/app/metadata.ts': '../../local-runner-metadata.ts',
    }),
  ).toEqual([]);
});
