// How a FunctionName is read, by the forms "Invoke" (AWS Lambda API Reference,
// https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html) lists: "Function name – my-function (name-only),
// my-function:v1 (with alias). Function ARN – arn:aws:lambda:us-west-2:123456789012:function:my-function. Partial ARN –
// 123456789012:function:my-function. You can append a version number or alias to any of the formats."
import { describe, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { invokeTarget } from '../../src/lambda/invoke-target.ts';

const { partition, region, accountId } = localAws;

describe('a FunctionName, in each of its forms', () => {
  test.each([
    ['my-function', { name: 'my-function' }],
    ['my-function:v1', { name: 'my-function', qualifier: 'v1' }],
    ['my-function:$LATEST', { name: 'my-function', qualifier: '$LATEST' }],
    [`arn:${partition}:lambda:${region}:${accountId}:function:my-function`, { name: 'my-function' }],
    [`arn:${partition}:lambda:${region}:${accountId}:function:my-function:7`, { name: 'my-function', qualifier: '7' }],
    [`${accountId}:function:my-function`, { name: 'my-function' }],
    [`${accountId}:function:my-function:live`, { name: 'my-function', qualifier: 'live' }],
  ])('%s', (given, expected) => {
    expect(invokeTarget(given)).toEqual(expected);
  });
});

describe('names no local function', () => {
  test.each([
    ['another account', `arn:${partition}:lambda:${region}:123456789012:function:my-function`],
    ['another region', `arn:${partition}:lambda:eu-west-3:${accountId}:function:my-function`],
    ['another partition', `arn:aws-cn:lambda:${region}:${accountId}:function:my-function`],
    ['a queue', `arn:${partition}:sqs:${region}:${accountId}:my-queue`],
    ['a name with a space', 'my function'],
    ['two qualifiers', 'my-function:v1:v2'],
    ['nothing', ''],
  ])('%s', (_, given) => {
    expect(invokeTarget(given)).toBeUndefined();
  });
});
