// The real `cdk synth`, as a user runs it (done once in test/global-setup.ts): offline, bundling every function,
// with cdk-nag's checks.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { synthesizedCloudAssembly } from '../helpers/cloud-assembly.ts';
import { contractOperations, functionIdOf } from '../helpers/contract-operations.ts';

const outdir = synthesizedCloudAssembly();
const template = () => JSON.parse(readFileSync(join(outdir, 'PlantStore.template.json'), 'utf8'));

test('bundles every function (one per operation of openapi.yaml, and the authorizer) as ESM with their source maps, where the template says (the path sam local uses)', () => {
  const functions = Object.entries(template().Resources).filter(
    ([, r]) => (r as { Type: string }).Type === 'AWS::Lambda::Function',
  );
  expect(functions.map(([id]) => id).sort()).toEqual(
    [...contractOperations().map(functionIdOf), 'BearerAuthorizerFunction'].sort(),
  );
  for (const [, resource] of functions) {
    const assetPath = (resource as { Metadata: Record<string, string> }).Metadata['aws:asset:path'];
    expect(assetPath).toMatch(/^asset\./);
    expect(existsSync(join(outdir, String(assetPath), 'index.mjs'))).toBe(true);
    // Deployed with the bundle, for decoding its stack traces (docs/deploy.md).
    expect(existsSync(join(outdir, String(assetPath), 'index.mjs.map'))).toBe(true);
  }
});

test('passes cdk-nag AwsSolutions with nothing unacknowledged', () => {
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports.filter((plugin: { conclusion: string }) => plugin.conclusion !== 'success')).toEqual([]);
  expect(readFileSync(join(outdir, 'synth-stderr.txt'), 'utf8')).not.toMatch(/AwsSolutions-/);
});
