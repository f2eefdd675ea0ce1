// The template's state machines read as the local Step Functions is seeded with them, their values through the
// template evaluator: "AWS::StepFunctions::StateMachine", CloudFormation Template Reference
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-stepfunctions-statemachine.html:
// DefinitionString, Definition, DefinitionSubstitutions, DefinitionS3Location, StateMachineName, StateMachineType;
// Ref returns the ARN, Fn::GetAtt Arn and Name).
import { expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { resolveValue, type ValueContext } from '../../src/app/intrinsics.ts';
import { generatedStateMachineName } from '../../src/app/return-values.ts';
import { stateMachinesOf } from '../../src/app/state-machine-resources.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources,
  exports: new Map(),
});
const machineArn = (name: string) => `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`;

const app = stack({
  Worker: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: 'worker' } },
  Joined: {
    Type: 'AWS::StepFunctions::StateMachine',
    Properties: {
      StateMachineName: 'joined',
      DefinitionString: {
        'Fn::Join': [
          '',
          [
            '{"StartAt":"Work","States":{"Work":{"Type":"Task","Resource":"',
            { 'Fn::GetAtt': ['Worker', 'Arn'] },
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a DefinitionSubstitutions placeholder, literally
            '","Parameters":{"Table":"${TableName}"},"End":true}}}',
          ],
        ],
      },
      DefinitionSubstitutions: { TableName: 'plants' },
      LoggingConfiguration: { Level: 'ALL' },
    },
  },
  Inline: {
    Type: 'AWS::StepFunctions::StateMachine',
    Properties: {
      StateMachineType: 'EXPRESS',
      Definition: {
        StartAt: 'Hello',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
        States: { Hello: { Type: 'Pass', Result: { 'Fn::Sub': '${AWS::Region}' }, End: true } },
      },
    },
  },
});

test('a definition from DefinitionString or Definition, evaluated, its substitutions applied; the rest said', () => {
  const notices: string[] = [];
  const [joined, inline] = stateMachinesOf([app], notices);
  expect(joined).toEqual({
    source: 'App/Joined',
    name: 'joined',
    arn: machineArn('joined'),
    type: 'STANDARD',
    definition: {
      StartAt: 'Work',
      States: {
        Work: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:worker',
          Parameters: { Table: 'plants' },
          End: true,
        },
      },
    },
  });
  expect(inline).toMatchObject({
    name: generatedStateMachineName('App', 'Inline'),
    type: 'EXPRESS',
    definition: { States: { Hello: { Result: 'us-east-1' } } },
  });
  expect(notices).toEqual([
    'App/Joined: its LoggingConfiguration is not applied locally (the runner logs each execution state by state)',
  ]);
});

test('Ref and Fn::GetAtt Arn give the ARN, Fn::GetAtt Name the name', () => {
  expect(resolveValue({ Ref: 'Joined' }, app)).toBe(machineArn('joined'));
  expect(resolveValue({ 'Fn::GetAtt': ['Inline', 'Arn'] }, app)).toBe(
    machineArn(generatedStateMachineName('App', 'Inline')),
  );
  expect(resolveValue({ 'Fn::GetAtt': ['Joined', 'Name'] }, app)).toBe('joined');
});

test('DefinitionS3Location is refused, naming the state machine and the property', () => {
  const fromS3 = stack({
    FromS3: {
      Type: 'AWS::StepFunctions::StateMachine',
      Properties: { DefinitionS3Location: { Bucket: 'defs', Key: 'machine.json' } },
    },
  });
  expect(() => stateMachinesOf([fromS3], [])).toThrow(/App\/FromS3: its DefinitionS3Location is not read locally/);
});
