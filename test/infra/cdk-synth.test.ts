// The real `cdk synth`, as a user runs it: offline, bundling both functions, with cdk-nag's checks.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, test } from '@jest/globals';

const projectRoot = new URL('../../', import.meta.url).pathname;
const outdir = mkdtempSync(join(tmpdir(), 'plant-store-synth-'));
let output: { stdout: string; stderr: string };

beforeAll(async () => {
  output = await promisify(execFile)('node_modules/.bin/cdk', ['synth', '--quiet', '--output', outdir], {
    cwd: projectRoot,
    // No proxy and no home cache: a lookup of anything off this machine would fail, not hang.
    env: {
      ...process.env,
      CDK_HOME: join(outdir, '.cdk-home'),
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
    },
  });
}, 120_000);

const template = () => JSON.parse(readFileSync(join(outdir, 'PlantStore.template.json'), 'utf8'));

test('bundles both functions as ESM, where the template says (the path sam local uses)', () => {
  const functions = Object.entries(template().Resources).filter(
    ([, r]) => (r as { Type: string }).Type === 'AWS::Lambda::Function',
  );
  expect(functions.map(([id]) => id).sort()).toEqual(['BearerAuthorizerFunction', 'CreatePlantFunction']);
  for (const [, resource] of functions) {
    const assetPath = (resource as { Metadata: Record<string, string> }).Metadata['aws:asset:path'];
    expect(assetPath).toMatch(/^asset\./);
    expect(existsSync(join(outdir, String(assetPath), 'index.mjs'))).toBe(true);
  }
});

test('passes cdk-nag AwsSolutions with nothing unacknowledged', () => {
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports.filter((plugin: { conclusion: string }) => plugin.conclusion !== 'success')).toEqual([]);
  expect(output.stderr).not.toMatch(/AwsSolutions-/);
});
