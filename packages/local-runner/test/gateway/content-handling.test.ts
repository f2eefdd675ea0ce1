// The runner's content type conversions against the tables of "Content type conversions in API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings-workflow.html), each row
// written here as the page has it, and the Accept cases LocalStack's test_aws_proxy_binary_response validated on AWS.
import { describe, expect, test } from '@jest/globals';
import type { ContentHandling } from '../../src/app/rest-api.ts';
import {
  integrationRequestIsBinary,
  isBase64,
  isBinaryMediaType,
  textResponseIsDecoded,
} from '../../src/gateway/content-handling.ts';
import { proxyResultToResponse } from '../../src/gateway/responses.ts';

// [method request payload, contentHandling, integration request payload]
const requestTable: ['text' | 'binary', ContentHandling, string][] = [
  ['text', undefined, 'text'],
  ['text', 'CONVERT_TO_BINARY', 'binary (base64-decoded)'],
  ['text', 'CONVERT_TO_TEXT', 'text'],
  ['binary', undefined, 'binary'],
  ['binary', 'CONVERT_TO_BINARY', 'binary'],
  ['binary', 'CONVERT_TO_TEXT', 'text (base64-encoded)'],
];

// [integration response payload: text; Accept a binary type?, contentHandling, method response payload]
const responseTable: [boolean, ContentHandling, string][] = [
  [false, undefined, 'text'],
  [false, 'CONVERT_TO_BINARY', 'binary (base64-decoded)'],
  [false, 'CONVERT_TO_TEXT', 'text'],
  [true, undefined, 'binary (base64-decoded)'],
  [true, 'CONVERT_TO_BINARY', 'binary (base64-decoded)'],
  [true, 'CONVERT_TO_TEXT', 'text'],
];

describe('the tables', () => {
  test.each(requestTable)('a %s request with %s reaches the integration as %s', (payload, handling, expected) => {
    expect(integrationRequestIsBinary(payload === 'binary', handling)).toBe(expected.startsWith('binary'));
  });

  test.each(responseTable)('a text response, Accept binary %s, with %s, answers %s', (accept, handling, expected) => {
    expect(textResponseIsDecoded(accept, handling)).toBe(expected.startsWith('binary'));
  });
});

describe('which media types are binary', () => {
  test.each([
    ['image/png', ['image/png'], true],
    ['Image/PNG; q=1', ['image/png'], true],
    // Only the first media type of an Accept counts.
    ['image/webp,image/png,*/*;q=0.8', ['image/png'], false],
    ['image/png,image/*', ['image/png'], true],
    // A wildcard in the header is no wildcard of the binary media types.
    ['image/*', ['image/png'], false],
    ['application/whatever', ['application/*'], true],
    ['text/plain', ['*/*'], true],
    // Without the header: application/json.
    [undefined, ['*/*'], true],
    [undefined, ['application/octet-stream'], false],
    ['text/plain', [], false],
  ] as [string | undefined, string[], boolean][])('%s under %j: %s', (header, types, expected) => {
    expect(isBinaryMediaType(header, types)).toBe(expected);
  });

  test('a conversion to binary takes standard base64 only', () => {
    expect(['', 'iVBORw==', 'aGk=', 'aGlq'].map(isBase64)).toEqual([true, true, true, true]);
    expect(['aGk', 'a-_b', 'aGk=\n', '{"a":1}'].map(isBase64)).toEqual([false, false, false, false]);
  });
});

test('a base64 proxy result is decoded for a client that accepts a binary type, else answered as its text', () => {
  const result = { statusCode: 200, body: Buffer.from([0x89, 0x50]).toString('base64'), isBase64Encoded: true };
  expect(proxyResultToResponse(result, true)).toMatchObject({ body: Buffer.from([0x89, 0x50]) });
  expect(proxyResultToResponse(result, false)).toMatchObject({ body: Buffer.from(result.body) });
});
