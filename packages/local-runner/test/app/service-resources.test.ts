// The template's parameters and secrets read as the local services are seeded with them, their values through the
// template evaluator: "AWS::SSM::Parameter" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html)
// and "AWS::SecretsManager::Secret" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-secretsmanager-secret.html),
// CloudFormation Template Reference.
import { expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { serviceSeedsOf } from '../../src/app/service-resources.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [{ id: 'Plants', tableName: 'plants' }],
  resources,
  exports: new Map(),
});

test("a parameter's Name and Value through the evaluator; no Name: CFN-<logical id>-<12 characters>", () => {
  const seeds = serviceSeedsOf([
    stack({
      Named: {
        Type: 'AWS::SSM::Parameter',
        Properties: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
          Name: { 'Fn::Sub': '/${AWS::StackName}/table' },
          Type: 'String',
          Value: { Ref: 'Plants' },
        },
      },
      Unnamed: { Type: 'AWS::SSM::Parameter', Properties: { Type: 'StringList', Value: 'a,b' } },
      // A table's Ref is its TableName (the evaluator reads it from the resource, as the runner names the table).
      Plants: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'plants' } },
    }),
  ]);
  expect(seeds.parameters).toEqual([
    { source: 'App/Named', name: '/App/table', type: 'String', value: 'plants' },
    {
      source: 'App/Unnamed',
      name: expect.stringMatching(/^CFN-Unnamed-[A-Za-z0-9]{12}$/),
      type: 'StringList',
      value: 'a,b',
    },
  ]);
  expect(seeds.notices).toEqual([]);
});

test('a value the evaluator cannot know leaves that resource unseeded, said', () => {
  const seeds = serviceSeedsOf([
    stack({
      Elsewhere: {
        Type: 'AWS::SSM::Parameter',
        Properties: { Name: '/app/domain', Type: 'String', Value: { 'Fn::GetAtt': ['Distribution', 'DomainName'] } },
      },
      Distribution: { Type: 'AWS::CloudFront::Distribution' },
    }),
  ]);
  expect(seeds.parameters).toEqual([]);
  expect(seeds.notices).toEqual([
    expect.stringMatching(
      /^App\/Elsewhere: its Value .*DomainName.* has no local value: not seeded \(put it with --service-values\)$/,
    ),
  ]);
});

test("a secret's SecretString, its GenerateSecretString's properties, and a generated name", () => {
  const seeds = serviceSeedsOf([
    stack({
      Given: { Type: 'AWS::SecretsManager::Secret', Properties: { Name: 'app/given', SecretString: '{"k":"v"}' } },
      Made: {
        Type: 'AWS::SecretsManager::Secret',
        Properties: {
          GenerateSecretString: {
            PasswordLength: 12,
            ExcludeCharacters: '"@/\\',
            ExcludePunctuation: 'true',
            SecretStringTemplate: '{"username":"admin"}',
            GenerateStringKey: 'password',
          },
        },
      },
      Empty: { Type: 'AWS::SecretsManager::Secret', Properties: { Name: 'app/empty' } },
    }),
  ]);
  expect(seeds.secrets).toEqual([
    { source: 'App/Given', name: 'app/given', secretString: '{"k":"v"}' },
    {
      source: 'App/Made',
      name: expect.stringMatching(/^Made-[A-Za-z0-9]{12}$/),
      generate: {
        passwordLength: 12,
        excludeCharacters: '"@/\\',
        excludePunctuation: true,
        secretStringTemplate: '{"username":"admin"}',
        generateStringKey: 'password',
      },
    },
    { source: 'App/Empty', name: 'app/empty' },
  ]);
});

test('what CloudFormation refuses is refused, naming the resource', () => {
  const refused = (properties: Record<string, unknown>) => () =>
    serviceSeedsOf([stack({ Odd: { Type: 'AWS::SecretsManager::Secret', Properties: properties } })]);
  expect(refused({ SecretString: 'x', GenerateSecretString: {} })).toThrow(UnsupportedTemplateError);
  expect(refused({ SecretString: 'x', GenerateSecretString: {} })).toThrow(/^App\/Odd: a secret with both/);
  expect(refused({ GenerateSecretString: { GenerateStringKey: 'password' } })).toThrow(
    /^App\/Odd: GenerateSecretString has one of SecretStringTemplate and GenerateStringKey without the other/,
  );
});
