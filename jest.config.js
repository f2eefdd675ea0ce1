// Jest runs the TypeScript sources as ESM (Middy is ESM-only), compiled by swc.
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2024', parser: { syntax: 'typescript' } }, module: { type: 'es6' } },
    ],
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testTimeout: 30_000,
  // Coverage of the Lambda code (with --coverage, as `npm test` runs it), measured where it runs in-process (the
  // handler and store tests); README says the figure. Type-only modules have no code to run.
  coverageProvider: 'v8',
  collectCoverageFrom: [
    'functions/**/*.{ts,js}',
    '!functions/**/*.d.ts',
    '!functions/commons/contract/openapi-types.ts',
    '!functions/commons/contract/generate.ts',
    '!functions/create-plant/plant-store.ts',
  ],
  coverageReporters: ['text-summary'],
  coverageThreshold: { global: { statements: 95, lines: 95, functions: 95, branches: 85 } },
};
