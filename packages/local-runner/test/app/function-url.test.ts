// Reading a function URL (AWS::Lambda::Url, "Adding a function URL to a CloudFormation template" in
// https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html): what the runner serves of it, and what it
// refuses at start, naming the resource and the property.
import { describe, expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { readFunctionUrl } from '../../src/app/function-url.ts';

const functionOf = (arn: unknown, where: string) => {
  const [id, attribute] = (arn as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
  if (attribute !== 'Arn' || id === undefined) throw new Error(`${where}: not a function's Arn`);
  return { functionId: id };
};
const template = (properties: Record<string, unknown>): Record<string, CfnResource> => ({
  Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
  Live: { Type: 'AWS::Lambda::Alias', Properties: { FunctionName: { Ref: 'Fn' }, Name: 'live' } },
  Url: {
    Type: 'AWS::Lambda::Url',
    Properties: { AuthType: 'NONE', TargetFunctionArn: { 'Fn::GetAtt': ['Fn', 'Arn'] }, ...properties },
  },
});
const read = (properties: Record<string, unknown>) => readFunctionUrl(template(properties), 'Url', functionOf);

describe('a function URL read', () => {
  test('its function, AuthType, InvokeMode (BUFFERED when absent) and Cors', () => {
    expect(read({ AuthType: 'AWS_IAM', Cors: { AllowOrigins: ['*'], AllowMethods: ['*'], MaxAge: 60 } })).toEqual({
      authType: 'AWS_IAM',
      invokeMode: 'BUFFERED',
      functionId: 'Fn',
      cors: {
        allowOrigins: ['*'],
        allowMethods: ['*'],
        allowHeaders: [],
        exposeHeaders: [],
        maxAge: 60,
        allowCredentials: false,
      },
    });
    expect(read({ InvokeMode: 'RESPONSE_STREAM' }).invokeMode).toBe('RESPONSE_STREAM');
  });

  test("an alias's name as Qualifier: the alias; $LATEST: the function", () => {
    expect(read({ Qualifier: 'live' }).qualifier).toBe('live');
    expect(read({ Qualifier: '$LATEST' }).qualifier).toBeUndefined();
  });

  test.each([
    [{ AuthType: 'OAUTH' }, /^Url: AuthType OAUTH/],
    [{ AuthType: { Ref: 'Mode' } }, /^Url: AuthType/],
    [{ InvokeMode: 'PARTIAL' }, /^Url: InvokeMode PARTIAL/],
    [{ Qualifier: '3' }, /^Url: Qualifier 3, which names no AWS::Lambda::Alias of Fn/],
    [{ Cors: { AllowOrigins: ['https://*.example.com'] } }, /^Url: Cors\.AllowOrigins https:\/\/\*\.example\.com/],
    [{ Cors: 'all' }, /^Url: Cors all, not an object/],
  ])('refused: %j', (properties, message) => {
    expect(() => read(properties)).toThrow(message);
  });
});
