// How a function's asynchronous invocations are handled, read from its stack ("AWS::Lambda::EventInvokeConfig",
// CloudFormation Template Reference: MaximumRetryAttempts, MaximumEventAgeInSeconds, DestinationConfig, Qualifier;
// "Configuring error handling for asynchronous invocation",
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html: two retries and six hours by
// default), and its DeadLetterConfig.TargetArn.
import { expect, test } from '@jest/globals';
import { asyncInvokeConfigOf } from '../../src/app/async-invoke-config.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';

const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const stack: ValueContext = {
  stackName: 'Async',
  tables: [],
  exports: new Map(),
  resources: {
    Plain: { Type: 'AWS::Lambda::Function', Properties: {} },
    Configured: {
      Type: 'AWS::Lambda::Function',
      Properties: { FunctionName: 'configured', DeadLetterConfig: { TargetArn: queueArn('dead') } },
    },
    Latest: {
      Type: 'AWS::Lambda::EventInvokeConfig',
      Properties: {
        FunctionName: { Ref: 'Configured' },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
        DestinationConfig: {
          OnSuccess: { Destination: queueArn('successes') },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
          OnFailure: { Destination: { 'Fn::Sub': 'arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:failures' } },
        },
      },
    },
    OfAlias: {
      Type: 'AWS::Lambda::EventInvokeConfig',
      Properties: { FunctionName: 'configured', Qualifier: 'live', MaximumRetryAttempts: 1 },
    },
    Unknown: {
      Type: 'AWS::Lambda::EventInvokeConfig',
      Properties: {
        FunctionName: 'configured',
        Qualifier: 'odd',
        DestinationConfig: { OnFailure: { Destination: { Ref: 'Nothing' } } },
      },
    },
  },
};

test('without a configuration: two retries, six hours, no destination', () => {
  expect(asyncInvokeConfigOf(stack, 'Plain', undefined, () => undefined)).toEqual({
    maximumRetryAttempts: 2,
    maximumEventAgeSeconds: 21_600,
  });
});

test("the configuration of the qualifier invoked ($LATEST unqualified), its destinations evaluated, and the function's DLQ", () => {
  expect(asyncInvokeConfigOf(stack, 'Configured', undefined, () => undefined)).toEqual({
    maximumRetryAttempts: 0,
    maximumEventAgeSeconds: 60,
    onSuccess: queueArn('successes'),
    onFailure: queueArn('failures'),
    deadLetter: queueArn('dead'),
  });
  expect(asyncInvokeConfigOf(stack, 'Configured', 'live', () => undefined)).toEqual({
    maximumRetryAttempts: 1,
    maximumEventAgeSeconds: 21_600,
    deadLetter: queueArn('dead'),
  });
});

test('a destination with no local value is said, and left out', () => {
  const said: string[] = [];
  expect(asyncInvokeConfigOf(stack, 'Configured', 'odd', (line) => said.push(line))).toEqual({
    maximumRetryAttempts: 2,
    maximumEventAgeSeconds: 21_600,
    deadLetter: queueArn('dead'),
  });
  expect(said).toEqual([
    expect.stringMatching(/^Unknown: OnFailure is .*Nothing.*, which has no local value: not applied$/),
  ]);
});
