// Powertools for AWS Lambda (TypeScript)'s public layers by ARN: the release each layer version holds, as Powertools'
// "Lambda layers" pages name it (one page per release: https://docs.aws.amazon.com/powertools/typescript/2.19.0/getting-started/lambda-layers/
// lists arn:aws:lambda:<region>:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:25; the page's source,
// docs/getting-started/lambda-layers.md in aws-powertools/powertools-lambda-typescript, names layer 50 from 2.35.0,
// with the GovCloud and China accounts in its table), and the packages the layer of that release holds (the
// publisher stack's utilities, layers/src/layer-publisher-stack.ts: parser from 2.9.0, "chore(layers): add Parser to
// layer (#3101)").
import { describe, expect, test } from '@jest/globals';
import { powertoolsLayerOf } from '../../src/app/powertools-layers.ts';

const cache = '/cache';

describe("Powertools' public layers: the release a layer version holds", () => {
  test.each([
    ['arn:aws:lambda:eu-west-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:25', '2.19.0'],
    ['arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:50', '2.35.0'],
    ['arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:2', '2.0.2'],
    ['arn:aws-us-gov:lambda:us-gov-west-1:165093116878:layer:AWSLambdaPowertoolsTypeScriptV2:50', '2.35.0'],
    ['arn:aws-cn:lambda:cn-north-1:498634801083:layer:AWSLambdaPowertoolsTypeScriptV2:50', '2.35.0'],
  ])('%s holds %s, in its folder of the cache', (arn, version) => {
    expect(powertoolsLayerOf(arn, cache)).toMatchObject({ arn, version, dir: `/cache/powertools-ts-${version}` });
  });

  test('the packages a release holds: its layer held parser from 2.9.0, event-handler from 2.31.0', () => {
    const layer = (version: number) =>
      powertoolsLayerOf(
        `arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:${version}`,
        cache,
      );
    const packages = (version: number) => (layer(version) as { packages: string[] }).packages;
    expect(packages(13)).not.toContain('@aws-lambda-powertools/parser');
    expect(packages(14)).toContain('@aws-lambda-powertools/parser');
    expect(packages(44)).not.toContain('@aws-lambda-powertools/event-handler');
    expect(packages(50)).toEqual(
      [
        'commons',
        'logger',
        'metrics',
        'tracer',
        'parameters',
        'idempotency',
        'batch',
        'jmespath',
        'parser',
        'event-handler',
      ].map((name) => `@aws-lambda-powertools/${name}`),
    );
  });

  test.each([
    // V2's first layer: named by the docs before 2.0's release, at no single release.
    'arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:1',
    // Newer than the releases the runner knows.
    'arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:51',
    // v1's layer (docs.aws.amazon.com/powertools/typescript/1.16.0 names AWSLambdaPowertoolsTypeScript).
    'arn:aws:lambda:eu-west-1:094274105915:layer:AWSLambdaPowertoolsTypeScript:25',
  ])('%s: a Powertools layer whose release is not known here, refused saying so', (arn) => {
    expect(powertoolsLayerOf(arn, cache)).toEqual({
      refused: expect.stringMatching(/^it is a public layer of Powertools for AWS Lambda \(TypeScript\) \(/),
    });
  });

  test.each([
    // The same layer name in another account is not Powertools'.
    'arn:aws:lambda:us-east-1:123456789012:layer:AWSLambdaPowertoolsTypeScriptV2:25',
    'arn:aws:lambda:us-east-1:123456789012:layer:greeting:3',
    // Powertools for AWS Lambda (Python)'s layer: not served from npm.
    'arn:aws:lambda:us-east-1:017000801446:layer:AWSLambdaPowertoolsPythonV3-python313-x86_64:7',
  ])('%s is not one of them', (arn) => {
    expect(powertoolsLayerOf(arn, cache)).toBeUndefined();
  });
});
