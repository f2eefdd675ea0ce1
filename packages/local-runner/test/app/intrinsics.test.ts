// The template values with a local meaning (src/app/intrinsics.ts): what the Lambda resources' references give, and
// Fn::Sub as the CloudFormation template reference's "Fn::Sub" describes it (a variable map, `${Id.Attribute}`,
// `${!Literal}`). What has no local meaning is UnresolvableValueError (an object's inherited keys, `toString`, name
// nothing).
import { describe, expect, test } from '@jest/globals';
import { resolveValue, UnresolvableValueError, type ValueContext } from '../../src/app/intrinsics.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';

const stack: ValueContext = {
  stackName: 'Shop',
  tables: [{ id: 'Plants', tableName: 'plants' }],
  exports: new Map(),
  resources: {
    Plants: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'plants' } },
    Orders: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { TableName: 'orders', StreamSpecification: { StreamViewType: 'NEW_IMAGE' } },
    },
    Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    Named: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: { 'Fn::Sub': '${AWS::StackName}-orders' } } },
    Live: { Type: 'AWS::Lambda::Alias', Properties: { FunctionName: { Ref: 'Fn' }, Name: 'live' } },
    Published: { Type: 'AWS::Lambda::Version', Properties: { FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
    Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Pool: { Type: 'AWS::Cognito::UserPool', Properties: {} },
  },
};
// A function with no FunctionName is named as CloudFormation names it: `<stack>-<logical id>-<random>`
// ("AWS::Lambda::Function", FunctionName), the random part stable locally.
const name = generatedFunctionName('Shop', 'Fn');
const arn = `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

describe('resolved', () => {
  test.each([
    [{ 'Fn::GetAtt': ['Fn', 'Arn'] }, arn],
    [{ Ref: 'Live' }, `${arn}:live`],
    [{ Ref: 'Published' }, `${arn}:1`],
    // "AWS::Lambda::Alias" return values: AliasArn, the alias's ARN (as its Ref).
    [{ 'Fn::GetAtt': ['Live', 'AliasArn'] }, `${arn}:live`],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    [{ 'Fn::Sub': 'arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${Fn}' }, arn],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    [{ 'Fn::Sub': '${Fn.Arn}:live' }, `${arn}:live`],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    [{ 'Fn::Sub': ['${Name}-${Plants}', { Name: { Ref: 'AWS::StackName' } }] }, 'Shop-plants'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    [{ 'Fn::Sub': '${!Literal} and ${Fn}' }, `\${Literal} and ${name}`],
    // A FunctionName the template gives, evaluated: the function's Ref and ARN.
    [{ Ref: 'Named' }, 'Shop-orders'],
    [{ 'Fn::GetAtt': ['Named', 'Arn'] }, 'arn:aws:lambda:us-east-1:000000000000:function:Shop-orders'],
    // "AWS::DynamoDB::Table" return values: StreamArn, the stream's ARN; a template's table's stream has a fixed
    // label locally (database/streams/stream-log.ts), the one the local database gives it.
    [
      { 'Fn::GetAtt': ['Orders', 'StreamArn'] },
      'arn:aws:dynamodb:us-east-1:000000000000:table/orders/stream/1970-01-01T00:00:00.000',
    ],
  ])('%j', (value, expected) => {
    expect(resolveValue(value, stack)).toBe(expected);
  });
});

test('a generated function name: <stack>-<logical id>-<12 letters or digits>, at most 64 characters', () => {
  expect(name).toMatch(/^Shop-Fn-[A-Za-z0-9]{12}$/);
  const long = generatedFunctionName('A'.repeat(40), `Function${'B'.repeat(40)}`);
  expect(long).toMatch(new RegExp(`^${'A'.repeat(40)}-FunctionBB-[A-Za-z0-9]{12}$`));
  expect(long).toHaveLength(64);
});

describe('no local meaning', () => {
  test.each([
    { Ref: 'Queue' },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    { 'Fn::Sub': '${Queue.QueueUrl}' },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
    { 'Fn::Sub': ['${toString}', {}] },
    { 'Fn::Sub': 42 },
    { Ref: 'toString' },
    { 'Fn::GetAtt': ['Pool', 'constructor'] },
    // A table without a StreamSpecification has no stream.
    { 'Fn::GetAtt': ['Plants', 'StreamArn'] },
  ])('%j', (value) => {
    expect(() => resolveValue(value, stack)).toThrow(UnresolvableValueError);
  });
});

// "AWS::CloudFormation::Stack"
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudformation-stack.html): the
// parent gives a nested stack its parameters (Parameters), and reads its outputs as Fn::GetAtt `Outputs.<name>`.
describe('a nested stack: its parameters given by its parent, its outputs read by it', () => {
  const nested: ValueContext = {
    stackName: 'Shop-Inner-ABC',
    tables: [],
    exports: new Map(),
    resources: {
      Worker: { Type: 'AWS::Lambda::Function', Properties: {} },
      Network: { Type: 'AWS::EC2::VPC', Properties: { CidrBlock: '10.0.0.0/16' } },
    },
    template: {
      Parameters: { Table: { Type: 'String' }, Zones: { Type: 'CommaDelimitedList' } },
      given: new Map([
        ['Table', { value: { Ref: 'Plants' }, stack }],
        ['Zones', { value: 'a,b', stack }],
      ]),
    },
  };
  const parent: ValueContext = {
    ...stack,
    template: {
      nested: new Map([
        [
          'Inner',
          {
            outputs: {
              WorkerName: { Value: { Ref: 'Worker' } },
              Table: { Value: { Ref: 'Table' } },
              VpcId: { Value: { Ref: 'Network' } },
              VpcCidr: { Value: { 'Fn::GetAtt': ['Network', 'CidrBlock'] } },
            },
            stack: nested,
          },
        ],
      ]),
    },
  };

  test.each([
    ['in the nested stack', nested, { Ref: 'Table' }, 'plants'],
    ['in the nested stack', nested, { 'Fn::Join': ['+', { Ref: 'Zones' }] }, 'a+b'],
    [
      'in the parent',
      parent,
      { 'Fn::GetAtt': ['Inner', 'Outputs.WorkerName'] },
      generatedFunctionName('Shop-Inner-ABC', 'Worker'),
    ],
    ['in the parent', parent, { 'Fn::GetAtt': ['Inner', 'Outputs.Table'] }, 'plants'],
    // aws-samples/aws-cdk-examples, typescript/api-gateway-parallel-step-functions: its functions' variables are a nested
    // VPC's id and CIDR ("AWS::EC2::VPC" return values: Ref the VPC's id, CidrBlock its CIDR block).
    ['in the parent', parent, { 'Fn::GetAtt': ['Inner', 'Outputs.VpcId'] }, 'Network'],
    ['in the parent', parent, { 'Fn::GetAtt': ['Inner', 'Outputs.VpcCidr'] }, '10.0.0.0/16'],
  ])('%s %#', (_, context, value, expected) => {
    expect(resolveValue(value, context)).toBe(expected);
  });

  test('an output the nested stack does not have has no value, naming it', () => {
    expect(() => resolveValue({ 'Fn::GetAtt': ['Inner', 'Outputs.Missing'] }, parent)).toThrow(
      /the nested stack Shop-Inner-ABC has no output Missing/,
    );
  });
});
