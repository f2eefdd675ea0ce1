// The boundaries of the folder tree, as `npm run lint` enforces them (biome.json, noRestrictedImports): each wrong
// import is written into a copy of the layout and linted with the project's own configuration.
import { spawnSync } from 'node:child_process';
import { copyFileSync, type Dirent, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';

/** The files (path -> the module they import) linted together; the rule violations found, as `path: message`. */
const lint = (imports: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
  copyFileSync(join(projectRoot, 'biome.json'), join(dir, 'biome.json'));
  for (const [path, imported] of Object.entries(imports)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), `import { value } from '${imported}';\n\nexport const probe = value;\n`);
  }
  const { stdout } = spawnSync(
    join(projectRoot, 'node_modules/.bin/biome'),
    ['lint', '--vcs-enabled=false', '--reporter=github', '.'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  return [...stdout.matchAll(/^::error title=lint\/style\/noRestrictedImports,file=([^,]+),[^:]*::(.*)$/gm)].map(
    ([, file = '', message]) => `${file.slice(dir.length + 1)}: ${message}`,
  );
};

test('a wrong import of each kind fails lint, naming the rule it breaks', () => {
  expect(
    lint({
      'functions/create-plant/into-infra.ts': '../../infra/local/metadata.ts',
      'functions/create-plant/into-other-function.ts': '../bearer-authorizer/variable-names.ts',
      'functions/bearer-authorizer/into-other-function.ts': '../create-plant/config.ts',
      'functions/commons/into-a-function.ts': '../create-plant/config.ts',
      'infra/local/into-functions.ts': '../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/cli/into-functions.ts': '../../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/into-cli.ts': './cli/options.ts',
      'infra/local/gateway/into-cli.ts': '../cli/options.ts',
    }).sort(),
  ).toEqual([
    "functions/bearer-authorizer/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    "functions/commons/into-a-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    'functions/create-plant/into-infra.ts: functions/ never imports infra/: the Lambda code stands alone (README, Architecture).',
    "functions/create-plant/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    'infra/local/cli/into-functions.ts: The local runner serves any synthesized app from its template alone: it imports nothing from functions/ (docs/local-runner.md).',
    "infra/local/gateway/into-cli.ts: The runner's core serves any app: it never imports infra/local/cli/, where this product's names, folders and words live (docs/local-runner.md).",
    "infra/local/into-cli.ts: The runner's core serves any app: it never imports infra/local/cli/, where this product's names, folders and words live (docs/local-runner.md).",
    'infra/local/into-functions.ts: The local runner serves any synthesized app from its template alone: it imports nothing from functions/ (docs/local-runner.md).',
  ]);
});

const otherFunction =
  "A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.";

test('the boundary holds for a function folder no rule names: one this test creates, at every depth', () => {
  expect(
    lint({
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

test('no file under functions/ is deeper than the boundary rules reach (biome.json has one per depth)', () => {
  const overrides = (
    JSON.parse(readFileSync(join(projectRoot, 'biome.json'), 'utf8')) as {
      overrides: { includes: string[] }[];
    }
  ).overrides.flatMap(({ includes }) => includes.filter((glob) => glob.startsWith('functions/')));
  const deepestRule = Math.max(...overrides.map((glob) => glob.split('/').length - 1));
  const files = readdirSync(join(projectRoot, 'functions'), { recursive: true, withFileTypes: true }).filter((entry) =>
    entry.isFile(),
  );
  const depthOf = (entry: Dirent) => relative(projectRoot, join(entry.parentPath, entry.name)).split('/').length - 1;
  expect(files.length).toBeGreaterThan(0);
  expect(Math.max(...files.map(depthOf))).toBeLessThanOrEqual(deepestRule);
});

test('the imports the architecture allows pass', () => {
  expect(
    lint({
      'functions/create-plant/own.ts': './config.ts',
      'functions/create-plant/commons.ts': '../commons/errors.ts',
      'infra/constructs/function.ts': '../../functions/bearer-authorizer/variable-names.ts',
      'infra/local/own.ts': './app/template.ts',
      'infra/local/gateway/sibling.ts': '../lambda/pool.ts',
      'infra/local/cli/into-core.ts': '../local-api.ts',
    }),
  ).toEqual([]);
});
