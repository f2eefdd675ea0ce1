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
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testTimeout: 30_000,
};
