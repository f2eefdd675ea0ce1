// A CDK app as `cdk synth` makes it (the feature flags of cdk.json), without bundling the functions: for the tests
// that read what a stack would deploy.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

/** The feature flags of cdk.json, as `cdk synth` applies them. */
export const { context: cdkJsonContext } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));

export const appWithoutBundling = (context: Record<string, unknown> = {}) =>
  new App({
    context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [], ...context },
    outdir: mkdtempSync(join(tmpdir(), 'plant-store-cdk-')),
  });
