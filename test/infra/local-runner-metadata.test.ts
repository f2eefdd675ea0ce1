// The stack writes the runner's Metadata without importing the runner: the key and the shape must stay the runner's.
import { expect, test } from '@jest/globals';
import * as runner from 'cdk-local-runner';
import * as stack from '../../infra/local-runner-metadata.ts';

test("the stack's token-issuer Metadata key is the one the runner reads", () => {
  expect(stack.tokenIssuerMetadataKey).toBe(runner.tokenIssuerMetadataKey);
});

test('the context key the stack reads for debugging is the one the runner gives', () => {
  expect(stack.inspectContextKey).toBe(runner.inspectContextKey);
});

test("the stack's variables are the runner's shape, both ways (a type check: tsc fails on a difference)", () => {
  const written: stack.TokenIssuerVariables = { issuer: 'I', audience: 'A', jwksUri: 'J', routeScopes: 'S' };
  const read: runner.TokenIssuerVariables = written;
  const back: stack.TokenIssuerVariables = read;
  expect(back).toEqual(written);
});
