import { tiers } from './packages/local-runner/jest.config.js';

// Jest runs the TypeScript sources as ESM (Middy is ESM-only), compiled by swc, in four tiers (CONTRIBUTING.md):
// `unit`, in-process and quick (`npm run test:unit`, the loop while you work); `property`, thousands of generated
// requests through the real chain in-process (named *.property.test.ts); `synth`, the tests that synthesize a CDK app
// (named *.synth.test.ts); and `e2e`, every test that starts the local runner, a browser, or a command over the whole
// project (`npm start`, the CDK CLI, the lint tools) (named *.e2e.test.ts). `npm test` runs all four, with coverage.
export default {
  // The template's tests and the runner's (packages/local-runner), in the tiers the runner's config declares.
  projects: tiers(['<rootDir>/test', '<rootDir>/packages/local-runner/test'], {
    setupFiles: ['<rootDir>/test/setup-env.ts'],
  }),
  // Once for the whole run, whichever tiers it runs.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30_000,
  // Coverage (with --coverage, as `npm test` runs it) of the code that runs in the tests' own process: the Lambda code
  // (the handler, store and authorizer tests), infra/ (the stack and its constructs), and the local runner's core
  // (served in-process by the e2e tests). Not measured: what runs only in other processes (the runner's commands in
  // its src/cli/, its database process and folder check, the CDK app's entry, the bundles' node:http shim; the
  // functions' runtime is JavaScript, runtime.mjs), and type-only modules.
  coverageProvider: 'v8',
  collectCoverageFrom: [
    'functions/**/*.{ts,js}',
    'infra/**/*.ts',
    'packages/local-runner/src/**/*.ts',
    '!**/*.d.ts',
    '!functions/commons/contract/openapi-types.ts',
    '!functions/commons/plant-repository.ts',
    '!infra/app.ts',
    '!packages/local-runner/src/cli/**',
    '!packages/local-runner/src/database/process.ts',
    '!packages/local-runner/src/database/folder-check.ts',
    '!packages/local-runner/src/index.ts',
    '!infra/constructs/bundling/**',
  ],
  coverageReporters: ['text-summary', 'json-summary'],
  // The floors, each over a folder's total: a key that is a folder sums its files, where a glob would judge each file
  // alone (https://jestjs.io/docs/configuration#coveragethreshold-object). Keys resolve from the working directory,
  // the project's root under npm run. coverage/coverage-summary.json has each file's figures, to find what to test.
  coverageThreshold: {
    './functions/': { lines: 95, statements: 95, functions: 95, branches: 85 },
    './infra/': { lines: 90, statements: 90, functions: 90, branches: 80 },
    './packages/local-runner/src/': { lines: 90, statements: 90, functions: 90, branches: 80 },
  },
};
