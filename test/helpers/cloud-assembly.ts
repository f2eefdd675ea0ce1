import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunnerOptions, readConfig } from 'cdk-local-runner';
import { projectRoot } from '../../infra/project-root.ts';

/** The cloud assembly test/global-setup.ts synthesized with the CDK CLI. */
export const synthesizedCloudAssembly = () => {
  const dir = process.env.PLANT_STORE_CLOUD_ASSEMBLY;
  if (!dir) throw new Error('PLANT_STORE_CLOUD_ASSEMBLY is not set: run the tests through jest (test/global-setup.ts)');
  return dir;
};

interface PlantStoreOptions {
  /** Default: a new temporary folder. */
  dataDir?: string;
  maxWorkers?: number;
  /** Values per function, over the quiet logging. */
  envVars?: { CreatePlantFunction?: Record<string, string>; BearerAuthorizerFunction?: Record<string, string> };
  log?: (line: string) => void;
}

/**
 * How tests serve the synthesized Plant Store: on a free port, the functions' logs off (their own lines, and the Lambda
 * runtime's for each rejection, would fill the output).
 */
export const plantStoreOptions = ({
  dataDir = mkdtempSync(join(tmpdir(), 'plant-store-test-')),
  maxWorkers = 4,
  envVars = {},
  log = () => undefined,
}: PlantStoreOptions = {}): RunnerOptions => ({
  cloudAssemblyDir: synthesizedCloudAssembly(),
  port: 0,
  dataDir,
  maxWorkers,
  tokenIssuer: readConfig(projectRoot).tokenIssuer,
  envVars: {
    CreatePlantFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...envVars.CreatePlantFunction },
    BearerAuthorizerFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...envVars.BearerAuthorizerFunction },
  },
  log,
  functionLog: () => undefined,
});
