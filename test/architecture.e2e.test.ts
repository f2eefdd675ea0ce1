// The boundaries of the folder tree, as `npm run lint` enforces them (.dependency-cruiser.mjs): each wrong import is
// written into a copy of the layout and cruised with the project's own configuration.
import { expect, test } from '@jest/globals';
import {
  functionsAloneMessage as functionsAlone,
  lintImports,
  otherFunctionMessage as otherFunction,
} from './helpers/lint.ts';

const shippedAlone =
  'infra/ never imports test/ or tools/: what deploys or serves stands without them (CONTRIBUTING.md).';
const dependenciesOnly =
  'What deploys (functions/ and the CDK app in infra/) imports only `dependencies`; devDependencies are for the runner, tests and tools (CONTRIBUTING.md, Dependencies).';
const noCircle =
  'No import circle, types included: a type two modules share lives in the one that owns its idea, or in a module of its own.';
const stackAlone =
  'The deployed stack never imports the local runner (packages/local-runner, a development tool): deleting it breaks nothing that deploys.';
const runnerAlone =
  'The local runner serves any synthesized app: it imports nothing outside its package but its dependencies (packages/local-runner/docs/development.md).';
const runnerTestsAlone =
  "The runner's src/ never imports its test/ nor packages/test-support: what it ships stands without its tests.";
const runnerTestsInside =
  "Nothing outside the runner imports its test/: what an app's tests share with the runner's is in packages/test-support, imported as `test-support/<module>` (CONTRIBUTING.md, Boundaries).";
const supportAlone =
  "packages/test-support serves the runner's tests and an app's alike: it imports nothing outside its package but its dependencies.";
const runnerDependencies =
  "What the runner ships (its src/) imports only its own package.json's `dependencies`: it installs and runs without anything else.";

test('a wrong import of each kind fails lint, naming the rule it breaks', () => {
  expect(
    lintImports({
      'functions/create-plant/into-infra.ts': '../../infra/local-runner-metadata.ts',
      'functions/create-plant/into-other-function.ts': '../bearer-authorizer/variable-names.ts',
      'functions/bearer-authorizer/into-other-function.ts': '../create-plant/config.ts',
      'functions/commons/into-a-function.ts': '../create-plant/config.ts',
      'packages/local-runner/src/into-functions.ts': '../../../functions/bearer-authorizer/variable-names.ts',
      'packages/local-runner/src/cli/into-infra.ts': '../../../../infra/local-runner-metadata.ts',
      'packages/local-runner/test/into-template-tests.ts': '../../../test/helpers/events.ts',
      'packages/local-runner/src/into-its-tests.ts': '../test/helpers/runner-process.ts',
      'packages/local-runner/src/into-test-support.ts': '../../test-support/raw-http.ts',
      'test/local/into-runner-tests.ts': '../../packages/local-runner/test/helpers/runner-process.ts',
      'tools/load/into-runner-tests.ts': '../../packages/local-runner/test/helpers/served-app.ts',
      'packages/test-support/into-template.ts': '../../test/helpers/events.ts',
      'packages/test-support/into-runner.ts': '../local-runner/src/http-server.ts',
      'packages/local-runner/src/dev-dependency.ts': 'fast-check',
      'packages/local-runner/src/template-dependency.ts': 'zod',
      'infra/constructs/into-runner.ts': '../../packages/local-runner/src/app/assembly.ts',
      'infra/into-runner.ts': 'cdk-local-runner',
      'functions/create-plant/into-runner.ts': 'type ../../packages/local-runner/src/http-server.ts',
      'functions/create-plant/into-test.ts': '../../test/helpers/events.ts',
      'functions/create-plant/into-tools.ts': 'type ../../tools/bench/bench.ts',
      'functions/create-plant/types-of-another.ts': 'type ../bearer-authorizer/config.ts',
      'infra/constructs/into-test.ts': '../../test/helpers/events.ts',
      'packages/local-runner/src/into-tools.ts': '../../../tools/load/load.ts',
      'test/helpers/into-tools.ts': '../../tools/bench/bench.ts',
      'tools/into-a-test.ts': '../test/architecture.e2e.test.ts',
      'functions/create-plant/dev-dependency.ts': 'fast-check',
      'infra/constructs/dev-dependency.ts': 'esbuild',
      'infra/constructs/circle-a.ts': 'type ./circle-b.ts',
      'infra/constructs/circle-b.ts': 'type ./circle-a.ts',
    }).sort(),
  ).toEqual([
    "functions/bearer-authorizer/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    "functions/commons/into-a-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    `functions/create-plant/dev-dependency.ts: ${dependenciesOnly}`,
    `functions/create-plant/into-infra.ts: ${functionsAlone}`,
    "functions/create-plant/into-other-function.ts: A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
    `functions/create-plant/into-runner.ts: ${stackAlone}`,
    `functions/create-plant/into-test.ts: ${functionsAlone}`,
    `functions/create-plant/into-tools.ts: ${functionsAlone}`,
    `functions/create-plant/types-of-another.ts: ${otherFunction}`,
    `infra/constructs/circle-a.ts: ${noCircle}`,
    `infra/constructs/dev-dependency.ts: ${dependenciesOnly}`,
    `infra/constructs/into-runner.ts: ${stackAlone}`,
    `infra/constructs/into-test.ts: ${shippedAlone}`,
    `infra/into-runner.ts: ${stackAlone}`,
    `packages/local-runner/src/cli/into-infra.ts: ${runnerAlone}`,
    `packages/local-runner/src/dev-dependency.ts: ${runnerDependencies}`,
    `packages/local-runner/src/into-functions.ts: ${runnerAlone}`,
    `packages/local-runner/src/into-its-tests.ts: ${runnerTestsAlone}`,
    `packages/local-runner/src/into-test-support.ts: ${runnerTestsAlone}`,
    `packages/local-runner/src/into-tools.ts: ${runnerAlone}`,
    `packages/local-runner/src/template-dependency.ts: ${runnerDependencies}`,
    `packages/local-runner/test/into-template-tests.ts: ${runnerAlone}`,
    `packages/test-support/into-runner.ts: ${supportAlone}`,
    `packages/test-support/into-template.ts: ${supportAlone}`,
    'test/helpers/into-tools.ts: test/helpers/ never imports tools/: programs reuse the helpers, not the other way (CONTRIBUTING.md).',
    `test/local/into-runner-tests.ts: ${runnerTestsInside}`,
    'tools/into-a-test.ts: A test file is never imported: share what tests have in common through test/helpers/.',
    `tools/load/into-runner-tests.ts: ${runnerTestsInside}`,
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
    `functions/new-operation/into-infra.ts: ${functionsAlone}`,
    `functions/new-operation/logic/deeper/still/into-create-plant.ts: ${otherFunction}`,
    `functions/new-operation/logic/into-authorizer.ts: ${otherFunction}`,
  ]);
});

test('the imports the architecture allows pass', () => {
  expect(
    lintImports({
      'functions/create-plant/own.ts': './config.ts',
      'functions/create-plant/commons.ts': '../commons/errors.ts',
      'infra/constructs/function.ts': '../../functions/bearer-authorizer/variable-names.ts',
      'packages/local-runner/src/own.ts': './app/assembly.ts',
      'packages/local-runner/src/gateway/sibling.ts': '../lambda/pool.ts',
      'packages/local-runner/test/own-source.ts': '../src/runner.ts',
      'packages/local-runner/test/shared.ts': '../../test-support/raw-http.ts',
      'test/local/shared.ts': '../../packages/test-support/raw-http.ts',
      'packages/local-runner/src/dependency.ts': 'dynalite',
      'test/local/the-runner.ts': 'cdk-local-runner',
      'infra/constructs/metadata.ts': '../local-runner-metadata.ts',
      'functions/create-plant/types.ts': 'type aws-lambda',
      'functions/create-plant/dependency.ts': '@middy/core',
      'infra/constructs/dependency.ts': 'aws-cdk-lib',
      'tools/bench/helper.ts': '../../test/helpers/events.ts',
      'test/tools/program.test.ts': '../../tools/bench/bench.ts',
    }),
  ).toEqual([]);
});
