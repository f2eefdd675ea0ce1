// Powertools for AWS Lambda (TypeScript)'s public layer named by ARN: served from the npm packages of the release the
// layer holds, as Powertools' "Lambda layers" pages name it (https://docs.aws.amazon.com/powertools/typescript/latest/getting-started/lambda-layers/;
// layer 50 from 2.35.0: docs/getting-started/lambda-layers.md in aws-powertools/powertools-lambda-typescript), installed
// once into the user's cache, laid out as Lambda extracts the layer into /opt (`nodejs/node_modules`). The tests never
// reach a registry: the cache is prepared from this repository's installed packages, or the registry is a closed
// loopback port.
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Runner } from '../../src/runner.ts';
import { powertoolsLayerArn, synthesizePowertoolsLayerApp } from '../fixtures/powertools-layer-app.ts';
import { cacheBeforeAll, unreachableRegistryBeforeAll } from '../helpers/package-cache.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';
import { refusalAtStart } from '../helpers/start-refusal.ts';

const get = async (api: Runner, path: string) => {
  const response = await fetch(`${api.url}${path}`);
  return { status: response.status, body: await response.text() };
};

/** The folder of this repository's @aws-lambda-powertools/parameters (its exports name no package.json). */
const parametersFolder = () => {
  const entry = fileURLToPath(import.meta.resolve('@aws-lambda-powertools/parameters'));
  const name = '/node_modules/@aws-lambda-powertools/parameters';
  return entry.slice(0, entry.lastIndexOf(name) + name.length);
};

describe("the user's cache holds the layer's packages (installed there once before)", () => {
  const cache = cacheBeforeAll('local-runner-powertools-cache-', (dir) => {
    // Release 2.35.0's commons, as `npm install --prefix <cache>/powertools-ts-2.35.0/nodejs` puts it: this
    // repository's copy of that release (the one @aws-lambda-powertools/parameters 2.35.0 depends on).
    const commons = join(parametersFolder(), 'node_modules/@aws-lambda-powertools/commons');
    const target = join(dir, 'powertools-ts-2.35.0/nodejs/node_modules/@aws-lambda-powertools/commons');
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(commons, target);
  });
  const runner = servedBeforeAll(() => synthesizePowertoolsLayerApp(), {
    get sdkCache() {
      return cache();
    },
  });

  test("the function imports the layer's packages, at the release the layer holds; nothing is installed", async () => {
    expect(await get(runner.api, '/powertools')).toEqual({ status: 200, body: '{"powertools":"2.35.0"}' });
    expect(runner.log.lines.filter((line) => line.includes('installing'))).toEqual([]);
  });
});

describe('the cache empty, and the registry unreachable (a closed loopback port)', () => {
  unreachableRegistryBeforeAll();
  const cache = cacheBeforeAll('local-runner-powertools-cache-');
  const runner = servedBeforeAll(() => synthesizePowertoolsLayerApp(), {
    get sdkCache() {
      return cache();
    },
  });

  test('the start says what it installs, and that it could not, naming the function and the layer', async () => {
    const folder = join(cache(), 'powertools-ts-2.35.0/nodejs');
    expect(runner.log.lines.filter((line) => line.includes("Powertools' layer"))).toEqual([
      `PowertoolsFunction: installing Powertools' layer ${powertoolsLayerArn} (@aws-lambda-powertools/commons, version 2.35.0) into ${folder}, once`,
      expect.stringMatching(
        /^PowertoolsFunction: Powertools' layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:50 could not be installed \(npm: .+\): give its contents with --layer /,
      ),
    ]);
  });

  test('the function then fails at init, its module not found', async () => {
    expect((await get(runner.api, '/powertools')).status).toBe(502);
    await runner.functionLog.seen(/^PowertoolsFunction: .*Cannot find package '@aws-lambda-powertools\/commons'/);
  });
});

describe('a Powertools layer version whose release Powertools does not name', () => {
  const arn = 'arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:1';
  let app = '';
  beforeAll(() => {
    app = synthesizePowertoolsLayerApp(arn);
  }, 120_000);

  test('refuses the app at start, naming the layer and --layer', async () => {
    const refusal = await refusalAtStart(app);
    expect(refusal).toBe(
      `PowertoolsFunction: its layer ${arn} cannot be fetched locally: it is a public layer of Powertools for AWS Lambda (TypeScript) (AWSLambdaPowertoolsTypeScriptV2 version 1), but the runner knows no release of Powertools that layer version holds (it serves AWSLambdaPowertoolsTypeScriptV2 versions 2 to 50, from the releases Powertools' "Lambda layers" pages name): give its contents with --layer ${arn}=DIR (DIR holding what Lambda extracts into /opt)`,
    );
  });
});
