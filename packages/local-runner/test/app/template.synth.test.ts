// The runner refuses, with a message naming the resource, what it cannot reproduce, instead of guessing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import {
  HttpIntegration,
  IdentitySource,
  LambdaIntegration,
  MockIntegration,
  RequestAuthorizer,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { readLocalApp } from '../../src/app/template.ts';
import { functionVariables } from '../../src/lambda/variables.ts';

const code = () => Code.fromAsset(new URL('../fixtures/functions', import.meta.url).pathname);

/** Synthesizes a one-function app after `build` has added to it, and reads it as the runner does. */
const read = (build: (stack: Stack, api: RestApi, fn: LambdaFunction) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'local-runner-template-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Case');
  const fn = new LambdaFunction(stack, 'Echo', { code: code(), handler: 'echo.handler', runtime: Runtime.NODEJS_24_X });
  (fn.node.defaultChild as CfnFunction).overrideLogicalId('EchoFunction');
  const api = new RestApi(stack, 'Api');
  build(stack, api, fn);
  app.synth();
  return readLocalApp(outdir);
};

test('a mock integration (a CORS preflight) is read as API Gateway answers it: the selected response, static', () => {
  const app = read((_stack, api) =>
    api.root
      .addResource('plants')
      .addCorsPreflight({ allowOrigins: ['https://app.example.com'], allowMethods: ['POST'] }),
  );
  expect(app.routes).toEqual([
    {
      integration: 'mock',
      resourcePath: '/plants',
      method: 'OPTIONS',
      authorizerId: undefined,
      statusCode: 204,
      headers: expect.objectContaining({
        'Access-Control-Allow-Origin': 'https://app.example.com',
        'Access-Control-Allow-Methods': 'POST',
      }),
      body: '',
    },
  ]);
});

describe('readLocalApp refuses', () => {
  test('a REQUEST authorizer', () => {
    expect(() =>
      read((stack, api, fn) => {
        const authorizer = new RequestAuthorizer(stack, 'Request', {
          handler: fn,
          identitySources: [IdentitySource.header('X-Key')],
        });
        api.root.addMethod('GET', new LambdaIntegration(fn), { authorizer });
      }),
    ).toThrow(/authorizer type REQUEST \(only TOKEN\)/);
  });

  test('an integration that is neither a Lambda proxy nor a mock', () => {
    expect(() => read((_stack, api) => api.root.addMethod('GET', new HttpIntegration('https://example.com/')))).toThrow(
      /integration type HTTP_PROXY \(only Lambda proxy, AWS_PROXY, and MOCK\)/,
    );
  });

  test('a mock whose answer needs mapping-template logic (VTL)', () => {
    const integrationResponses = [
      { statusCode: '200', responseTemplates: { 'application/json': '{"origin": "$input.params(\'Origin\')"}' } },
    ];
    const requestTemplates = { 'application/json': '{ statusCode: 200 }' };
    expect(() =>
      read((_stack, api) =>
        api.root.addMethod('GET', new MockIntegration({ requestTemplates, integrationResponses }), {
          methodResponses: [{ statusCode: '200' }],
        }),
      ),
    ).toThrow(/mock response template .* \(only a static body\)/);
  });

  test('a function that is not Node.js', () => {
    expect(() =>
      read((stack, api) => {
        const python = new LambdaFunction(stack, 'Python', {
          code: code(),
          handler: 'echo.handler',
          runtime: Runtime.PYTHON_3_13,
        });
        api.root.addMethod('GET', new LambdaIntegration(python));
      }),
    ).toThrow(/runtime python3\.13 is not Node\.js/);
  });
});

describe('functionVariables', () => {
  test('resolves what has a local meaning, and names a variable that has none', () => {
    const app = read((stack, api, fn) => {
      api.root.addMethod('GET', new LambdaIntegration(fn));
      fn.addEnvironment('REGION', stack.region);
      fn.addEnvironment('API', api.restApiId);
    });
    const echo = app.functions.get('EchoFunction');
    if (!echo) throw new Error('no EchoFunction');

    expect(functionVariables(echo, app, { API: 'overridden' })).toMatchObject({
      REGION: 'us-east-1',
      API: 'overridden',
    });
    expect(() => functionVariables(echo, app, {})).toThrow(
      /EchoFunction: environment variable API is \{"Ref":"Api\w+"\}, which has no local value; give one with --env-vars/,
    );
  });
});
