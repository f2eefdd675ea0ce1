// The AWS SDK Lambda's Node.js runtimes give every function ("Building Lambda functions with Node.js",
// https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html, "Runtime-included SDK versions"; v2 up to
// nodejs16.x: the guide's Node.js runtimes table, awsdocs/aws-lambda-developer-guide doc_source/lambda-nodejs.md),
// found locally in the function's bundle, its sources' folders, the project, else the user's cache, where the runner
// installs it once. The tests never reach a registry: the cache is prepared from this repository's installed packages,
// or the registry is a closed loopback port.
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { sdkCacheOf } from '../../src/lambda/runtime-sdk.ts';
import type { Runner } from '../../src/runner.ts';
import { installedPackage, synthesizeRuntimeSdkApp } from '../fixtures/runtime-sdk-app.ts';
import { cacheBeforeAll, unreachableRegistryBeforeAll } from '../helpers/package-cache.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

const get = async (api: Runner, path: string) => {
  const response = await fetch(`${api.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** `name`, linked into the cache's folder for `runtime` as `npm install` there would put it. */
const linkInto = (cache: string, runtime: string, name: string) => {
  const target = join(sdkCacheOf(cache, runtime), 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(installedPackage(name), target);
};

describe("the user's cache holds the runtime's SDK (installed there once before)", () => {
  const cache = cacheBeforeAll('local-runner-sdk-cache-', (dir) => {
    linkInto(dir, 'nodejs24.x', '@aws-sdk/client-dynamodb');
    linkInto(dir, 'nodejs16.x', 'aws-sdk');
  });
  const runner = servedBeforeAll(synthesizeRuntimeSdkApp, {
    get sdkCache() {
      return cache();
    },
  });

  test('a function whose app installs no SDK imports it from the cache, and nothing is installed', async () => {
    expect(await get(runner.api, '/none')).toEqual({ status: 200, body: { sdk: 'function' } });
    expect(runner.log.lines.filter((line) => line.includes('installing'))).toEqual([]);
  });

  test('nodejs16.x: SDK v2 (aws-sdk), pointed at the local endpoints as it loads, writes and reads the local table', async () => {
    // On AWS its DocumentClient reaches the function's table; SDK v2 reads no AWS_ENDPOINT_URL_DYNAMODB.
    expect(await get(runner.api, '/v2?id=fern')).toEqual({
      status: 200,
      body: { id: 'fern', writtenBy: 'aws-sdk 2.1001.0' },
    });
  });

  test("nodejs16.x: SDK v2's S3 client, pointed at the local S3 path-style as it loads, puts and gets an object", async () => {
    // SDK v2 addresses a bucket by host unless s3ForcePathStyle (its "Class: AWS.S3" API reference), which no
    // loopback address could serve: the runner sets it with the endpoint (lambda/runtime.mjs).
    expect(await get(runner.api, '/v2?id=leaf&bucket')).toEqual({
      status: 200,
      body: { id: 'leaf', stored: 'aws-sdk 2.1001.0' },
    });
  });

  test("nodejs16.x: SDK v2's clients named otherwise than their variables get the local endpoints too", async () => {
    // "Identifiers for service-specific endpoints" (https://docs.aws.amazon.com/sdkref/latest/guide/ss-endpoints-table.html)
    // names Step Functions SFN and EventBridge EVENTBRIDGE; v2's clients are AWS.StepFunctions and, for the same API,
    // AWS.EventBridge and AWS.CloudWatchEvents (its API reference's classes).
    const { AWS_ENDPOINT_URL_SFN: sfn, AWS_ENDPOINT_URL_EVENTBRIDGE: events } = runner.api.endpointVariables;
    expect(await get(runner.api, '/v2?endpoints')).toEqual({
      status: 200,
      body: { stepfunctions: `${sfn}/`, eventbridge: `${events}/`, cloudwatchevents: `${events}/` },
    });
  });
});

describe('no SDK in the app nor the cache, and the registry unreachable (a closed loopback port)', () => {
  unreachableRegistryBeforeAll();
  const cache = cacheBeforeAll('local-runner-sdk-cache-');
  const runner = servedBeforeAll(synthesizeRuntimeSdkApp, {
    get sdkCache() {
      return cache();
    },
  });

  test("a function whose SDK sits in its sources' own folder (its source map names them) imports it from there", async () => {
    expect(await get(runner.api, '/own-folder')).toEqual({ status: 200, body: { sdk: 'function' } });
  });

  test('said at start, naming the functions and what to install; the function fails at init, saying where it looked', async () => {
    const said = runner.log.lines.filter((line) => line.includes('could not be installed'));
    expect(said).toEqual([
      expect.stringMatching(
        /^NoSdkFunction: the runtime's AWS SDK could not be installed \(npm: .+\): install @aws-sdk\/client-dynamodb in the app \(npm install --save-dev @aws-sdk\/client-dynamodb\), or name a node_modules folder that has it with --runtime-sdk DIR/,
      ),
      expect.stringMatching(
        /^SdkV2Function: the runtime's AWS SDK could not be installed \(npm: .+\): install aws-sdk in/,
      ),
    ]);
    expect((await get(runner.api, '/none')).status).toBe(502);
    await runner.functionLog.seen(
      /^NoSdkFunction: .*Cannot find package '@aws-sdk\/client-dynamodb'.*the runner's cache/,
    );
  });
});
