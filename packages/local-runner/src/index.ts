// The runner as a library (package.json's `exports`): what the commands use, for programs and tests that serve an app
// in their own process. docs/library.md.

export type { Api, HttpApi, RestApi } from './app/api.ts';
export { readApi } from './app/assembly.ts';
export { type AppProject, appProjectAt, ensureSynthesized, synthesize } from './app/cloud-assembly.ts';
export type { FunctionDefinition } from './app/functions.ts';
export { type TokenIssuerVariables, tokenIssuerMetadataKey } from './app/metadata.ts';
export { configFileName, type RunnerConfig, readConfig } from './cli/config.ts';
export { inspectContextKey } from './cli/options.ts';
export { startDatabase } from './database/database.ts';
export { RunnerError } from './errors.ts';
export { listenOnLoopback } from './http-server.ts';
export { devIssuerScope, type IssuerIdentity, loadSigningKey, serveJwks, signDevToken } from './issuer/dev-issuer.ts';
export { localVariables } from './lambda/variables.ts';
export { type Runner, type RunnerOptions, startRunner, startServices } from './runner.ts';

import { type Runner, type RunnerOptions, startRunner } from './runner.ts';

/** @deprecated The earlier name (docs/library.md): use `startRunner`. */
export const startLocalApi = startRunner;
/** @deprecated The earlier name: use `Runner`. */
export type LocalApi = Runner;
/** @deprecated The earlier name: use `RunnerOptions`. */
export type LocalApiOptions = RunnerOptions;
