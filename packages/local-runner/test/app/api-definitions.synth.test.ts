// An API whose routes are written outside the template's route resources: an OpenAPI definition in its `Body` (the
// CDK's SpecRestApi with ApiDefinition.fromInline; the shape leegilmorecode/serverless-openapi, movie-service-json
// showed) or `BodyS3Location` ("AWS::ApiGateway::RestApi", "AWS::ApiGatewayV2::Api" in the CloudFormation template
// reference), or an HTTP API's quick create (`Target`, `RouteKey`: "This property is part of quick create", which
// "produces an API with an integration, a default catch-all route, and a default stage"). On AWS such an API has those
// routes; the runner reads routes from Resource and Method, or Route, resources alone, so it refuses the API, naming it
// and the property, rather than serve it without them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { ApiDefinition, type CfnRestApi, SpecRestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { readApi } from '../../src/app/assembly.ts';
import { RunnerError } from '../../src/errors.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The app `build` makes in a stack, synthesized and read as the runner reads it. */
const read = (build: (stack: Stack, fn: LambdaFunction) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'local-runner-api-definitions-'));
  folders.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Definitions');
  const fn = new LambdaFunction(stack, 'List', {
    code: Code.fromInline('exports.handler = async () => ({ statusCode: 200, body: "[]" });'),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  (fn.node.defaultChild as CfnFunction).overrideLogicalId('List');
  build(stack, fn);
  app.synth();
  return () => readApi(outdir);
};

/** An OpenAPI definition with one route, GET /v1/items, to `fn` (a Lambda proxy integration). */
const definition = (fn: LambdaFunction) => ({
  openapi: '3.0.3',
  info: { title: 'Items', version: '1' },
  paths: {
    '/v1/items': {
      get: {
        'x-amazon-apigateway-integration': {
          type: 'aws_proxy',
          httpMethod: 'POST',
          uri: `arn:aws:apigateway:${Stack.of(fn).region}:lambda:path/2015-03-31/functions/${fn.functionArn}/invocations`,
        },
        responses: { '200': { description: 'the items' } },
      },
    },
  },
});

const refusal = (readIt: () => unknown) => {
  try {
    readIt();
  } catch (error) {
    expect(error).toBeInstanceOf(RunnerError);
    return (error as Error).message;
  }
  throw new Error('served');
};

describe('an API whose routes the template writes outside its route resources: refused, naming it and the property', () => {
  test("a REST API with an OpenAPI definition in its Body (the CDK's SpecRestApi, inline)", () => {
    const app = read((stack, fn) => {
      const api = new SpecRestApi(stack, 'Spec', { apiDefinition: ApiDefinition.fromInline(definition(fn)) });
      (api.node.defaultChild as CfnRestApi).overrideLogicalId('Spec');
    });
    expect(refusal(app)).toMatch(/^Spec: Body, an OpenAPI definition of its routes, which the runner does not read/);
  });

  test('a REST API with an OpenAPI definition in S3 (BodyS3Location)', () => {
    const app = read((stack) => {
      const api = new SpecRestApi(stack, 'Spec', {
        apiDefinition: ApiDefinition.fromBucket(
          Bucket.fromBucketName(stack, 'Definitions', 'definitions'),
          'items.json',
        ),
      });
      (api.node.defaultChild as CfnRestApi).overrideLogicalId('Spec');
    });
    expect(refusal(app)).toMatch(/^Spec: BodyS3Location, an OpenAPI definition of its routes/);
  });

  test('an HTTP API made by quick create (Target, RouteKey on the API), or from an OpenAPI Body', () => {
    const quick = read((stack, fn) => {
      new CfnApi(stack, 'Quick', { name: 'Quick', protocolType: 'HTTP', target: fn.functionArn }).overrideLogicalId(
        'Quick',
      );
    });
    expect(refusal(quick)).toMatch(/^Quick: Target, quick create of its route and integration/);
    const body = read((stack, fn) => {
      new CfnApi(stack, 'Imported', { body: definition(fn) }).overrideLogicalId('Imported');
    });
    expect(refusal(body)).toMatch(/^Imported: Body, an OpenAPI definition of its routes/);
  });
});
