// CORS over the synthesized template, for the product's stack and for the extended fixture (operations a user added
// with addOperation): with an origin, every operation's resource has a preflight that no authorizer guards (API
// Gateway's mock integration), every function behind a route answers with the origin (CORS_ORIGIN), and every
// gateway response carries it; without one, none of it. As AWS's "CORS for REST APIs in API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-cors.html) has it: an OPTIONS method with a mock
// integration answers the preflight, a proxy integration's backend returns the headers itself, and the gateway's own
// 4XX and 5XX answers need them as gateway response headers. The browser's side: test/infra/browser-client.e2e.test.ts.
import { describe, expect, test } from '@jest/globals';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PlantStoreStack } from '../../infra/plant-store-stack.ts';
import { ExtendedStack } from '../fixtures/extended-app/infra/extended-stack.ts';
import { oddHostOrigins } from '../helpers/cors-origins.ts';
import { appWithoutBundling } from '../helpers/synth-app.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };

const stacks: [string, (origin?: string) => Stack][] = [
  ['the product', (origin) => new PlantStoreStack(appWithoutBundling(), 'PlantStore', { corsOrigin: origin })],
  [
    'the extended fixture',
    (origin) => new ExtendedStack(appWithoutBundling(origin === undefined ? {} : { corsOrigin: origin }), 'Extended'),
  ],
];

/** The template's resources, and the function a proxy method's URI calls (through its alias, or directly). */
const read = (stack: Stack) => {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const functionOf = (method: Resource): Resource => {
    const uri = JSON.stringify((method.Properties.Integration as { Uri: unknown }).Uri);
    const target = /"Ref":"(\w+)"|"Fn::GetAtt":\["(\w+)","Arn"\]/.exec(uri.replace('"Ref":"AWS::Partition"', ''));
    const named = resources[target?.[1] ?? target?.[2] ?? ''] as Resource;
    if (named.Type === 'AWS::Lambda::Function') return named;
    return resources[(named.Properties.FunctionName as { Ref: string }).Ref] as Resource;
  };
  return { ofType, functionOf };
};

const header = (parameters: unknown, name: string) =>
  (parameters as Record<string, string>)[`method.response.header.${name}`];

describe.each(stacks)('%s', (_name, stackWith) => {
  const origin = 'https://app.example.com';

  test('with an origin: a preflight per resource without the authorizer, the origin on every answer', () => {
    const { ofType, functionOf } = read(stackWith(origin));
    const methods = ofType('AWS::ApiGateway::Method').map(([, method]) => method.Properties);
    const proxies = ofType('AWS::ApiGateway::Method').filter(
      ([, method]) => (method.Properties.Integration as { Type: string }).Type === 'AWS_PROXY',
    );
    expect(proxies.length).toBeGreaterThan(0);
    const resourcesWithOperations = new Set(proxies.map(([, method]) => JSON.stringify(method.Properties.ResourceId)));
    for (const resourceId of resourcesWithOperations) {
      const onResource = methods.filter((method) => JSON.stringify(method.ResourceId) === resourceId);
      const preflight = onResource.find((method) => method.HttpMethod === 'OPTIONS');
      expect(preflight).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
      expect(preflight?.AuthorizerId).toBeUndefined();
      const integration = preflight?.Integration as { IntegrationResponses: { ResponseParameters: unknown }[] };
      const [answer] = integration.IntegrationResponses;
      expect(header(answer?.ResponseParameters, 'Access-Control-Allow-Origin')).toBe(`'${origin}'`);
      expect(header(answer?.ResponseParameters, 'Access-Control-Allow-Headers')).toBe("'Authorization,Content-Type'");
      // It names each operation's method on the resource.
      const allowed = header(answer?.ResponseParameters, 'Access-Control-Allow-Methods')?.slice(1, -1).split(',');
      for (const method of onResource.filter(({ HttpMethod }) => HttpMethod !== 'OPTIONS')) {
        expect(allowed).toContain(method.HttpMethod);
      }
    }
    for (const [, method] of proxies) {
      expect(method.Properties.AuthorizationType).toBe('CUSTOM');
      const variables = (functionOf(method).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.CORS_ORIGIN).toBe(origin);
    }
    const gatewayResponses = ofType('AWS::ApiGateway::GatewayResponse');
    expect(gatewayResponses.length).toBeGreaterThan(20);
    for (const [, response] of gatewayResponses) {
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': `'${origin}'`,
        'gatewayresponse.header.Access-Control-Expose-Headers': "'WWW-Authenticate, Retry-After'",
      });
    }
  });

  // Under binary media types that match a preflight, API Gateway takes its body as binary and cannot apply the mock's
  // request template: 500 "Execution failed due to configuration error: Unable to transform request"
  // (aws/serverless-application-model issue 553, serverless/serverless issues 7505 and 10254, aws/chalice issue 1310;
  // fixed with CONVERT_TO_TEXT in aws-samples/aws-cdk-examples pull request 770). A preflight carries no Content-Type,
  // which API Gateway reads as application/json ("Content type conversions in API Gateway").
  test('with an origin: every preflight converts to text, request and answer, where binary media types match it', () => {
    const { ofType } = read(stackWith(origin));
    const [[, api] = []] = ofType('AWS::ApiGateway::RestApi');
    const binaryMediaTypes = (api?.Properties.BinaryMediaTypes ?? []) as string[];
    const matchesJson = binaryMediaTypes.some((type) => ['*/*', 'application/*', 'application/json'].includes(type));
    expect(matchesJson).toBe(true);
    const preflights = ofType('AWS::ApiGateway::Method').filter(
      ([, method]) => method.Properties.HttpMethod === 'OPTIONS',
    );
    expect(preflights.length).toBeGreaterThan(0);
    for (const [id, preflight] of preflights) {
      const integration = preflight.Properties.Integration as {
        ContentHandling?: string;
        IntegrationResponses: { ContentHandling?: string }[];
      };
      expect([id, integration.ContentHandling]).toEqual([id, 'CONVERT_TO_TEXT']);
      for (const answer of integration.IntegrationResponses) {
        expect([id, answer.ContentHandling]).toEqual([id, 'CONVERT_TO_TEXT']);
      }
    }
  });

  test('without one: no preflight, no CORS_ORIGIN, no CORS header anywhere', () => {
    const { ofType } = read(stackWith());
    const template = JSON.stringify(ofType('AWS::ApiGateway::Method'));
    expect(template).not.toContain('OPTIONS');
    const everything = JSON.stringify([
      ...ofType('AWS::Lambda::Function'),
      ...ofType('AWS::ApiGateway::GatewayResponse'),
    ]);
    expect(everything).not.toMatch(/CORS_ORIGIN|Access-Control/);
  });
});

test('an origin that makes no sense stops the synth of the API itself, not only of the context', () => {
  expect(() => stacks[0]?.[1]('https://a.example.com,https://b.example.com')).toThrow(
    /^CORS origin https:\/\/a\.example\.com,https:\/\/b\.example\.com: one origin, or \*/,
  );
});

test.each(oddHostOrigins)('the API itself refuses %s, naming the host or port that is wrong', (origin, reason) => {
  const build = () => stacks[0]?.[1](origin);
  expect(build).toThrow(new RegExp(`^CORS origin ${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  expect(build).toThrow(reason);
});
