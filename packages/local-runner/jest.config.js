// The runner's tests, in the tiers the repository's projects use (one source: the template's jest.config.js imports
// `tiers`): `unit`, in-process and quick; `property` (*.property.test.ts); `synth`, tests that synthesize a CDK app
// (*.synth.test.ts); `e2e`, tests that start the runner or its database (*.e2e.test.ts). Jest runs the TypeScript
// sources as ESM, compiled by swc. `npm test` here runs them alone, each run in a temporary folder of its own.

/** The four tiers over `roots` (folders of tests), each with `common` (setup files, and the like). */
export const tiers = (roots, common = {}) => {
  const shared = {
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        { jsc: { target: 'es2024', parser: { syntax: 'typescript' } }, module: { type: 'es6' } },
      ],
    },
    ...common,
  };
  const under = (name) => roots.map((root) => `${root}/**/${name}`);
  return [
    {
      ...shared,
      displayName: 'unit',
      testMatch: under('*.test.ts'),
      testPathIgnorePatterns: ['/node_modules/', '\\.(property|synth|e2e)\\.test\\.ts$'],
    },
    { ...shared, displayName: 'property', testMatch: under('*.property.test.ts') },
    { ...shared, displayName: 'synth', testMatch: under('*.synth.test.ts') },
    { ...shared, displayName: 'e2e', testMatch: under('*.e2e.test.ts') },
  ];
};

export default {
  projects: tiers(['<rootDir>/test'], { setupFiles: ['<rootDir>/test/setup-env.ts'] }),
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30_000,
  // Time for a worker to tear down its heap after the run, before jest kills it (the repository's jest.config.js).
  workerGracefulExitTimeout: 10_000,
};
