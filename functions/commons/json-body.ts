// Reading a JSON request body: size, media type, UTF-8, nesting, then @middy/http-json-body-parser and exact numbers.
import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { parse as parseContentType } from 'content-type';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.ts';
import { exactNumbers } from './exact-json.ts';

/** `application/json` or any `+json` type (RFC 6839), as middy's own check. */
const jsonMediaType = /^application\/([a-z0-9.!#$&^_-]+\+)?json$/;

/** Deeper than this, a body is refused before parsing (NewPlant is one level; JSON.parse's reviver recurses). */
const maxNestingDepth = 64;

/** Fails on the first byte sequence that is not UTF-8 (overlong forms, surrogates, > U+10FFFF, truncations). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whether JSON.parse may have rounded a number in `text`: only a literal with a fraction, an exponent or 16 digits
 * or more can be inexact as a double (any integer of up to 15 digits is exact). Strings may match too; that costs
 * only the exact second parse.
 */
const mayHoldInexactNumbers = (text: string) => /[.eE]|\d{16}/.test(text);

/** 415 unless the Content-Type is JSON, in UTF-8 (RFC 8259: JSON exchanged between systems is UTF-8). */
const checkMediaType = (contentType: string | undefined) => {
  const { type, parameters } = parseContentType(contentType ?? '');
  if (!jsonMediaType.test(type)) throw new UnsupportedMediaTypeError('Content-Type must be application/json');
  const { charset = 'utf-8' } = parameters;
  if (charset.toLowerCase() !== 'utf-8') {
    throw new UnsupportedMediaTypeError(`Content-Type charset must be utf-8, not ${charset}`);
  }
};

/** The body's text: base64 bodies (API Gateway's binary media types) are decoded strictly, never repaired. */
const bodyText = (body: string, isBase64Encoded: boolean) => {
  if (!isBase64Encoded) return body;
  try {
    return utf8.decode(Buffer.from(body, 'base64'));
  } catch {
    throw new InvalidRequestError('request body: is not valid UTF-8');
  }
};

/** Whether `text` opens more than `max` arrays or objects inside each other (strings skipped). */
const nestedDeeperThan = (text: string, max: number) => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) {
        index += 1; // a backslash: skip the character it escapes
      } else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
};

/**
 * The request body as JSON, before anything reads it: 413 over `maxBytes`; 415 for a media type other than JSON in
 * UTF-8; 400 for bytes that are not UTF-8 or nesting deeper than `maxNestingDepth`. Then @middy/http-json-body-parser
 * (prototype-pollution guard, malformed JSON), and, when a number in it may have been rounded, the same text once more
 * with `exactNumbers`, since middy calls its reviver without JSON.parse's source-text argument. The middleware goes
 * after @middy/http-header-normalizer.
 */
export const jsonBody = (maxBytes: number): MiddlewareObj<APIGatewayProxyEvent> => {
  const { before: middyParse } = httpJsonBodyParser<APIGatewayProxyEvent>({ disableContentTypeCheck: true });
  return {
    before: async (request: Request<APIGatewayProxyEvent>) => {
      const { event } = request;
      if (event.body !== null) {
        const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
        if (bytes > maxBytes) {
          throw new PayloadTooLargeError(`Request body is ${bytes} bytes; the limit is ${maxBytes} bytes`);
        }
      }
      // @middy/http-header-normalizer has lower-cased the header names.
      checkMediaType(event.headers?.['content-type']);
      if (event.body === null) return; // the validator answers that a JSON object is required
      const text = bodyText(event.body, event.isBase64Encoded);
      if (nestedDeeperThan(text, maxNestingDepth)) {
        throw new InvalidRequestError(`request body: is nested deeper than ${maxNestingDepth} levels`);
      }
      Object.assign(event, { body: text, isBase64Encoded: false });
      await middyParse?.(request);
      if (mayHoldInexactNumbers(text)) (event as { body: unknown }).body = JSON.parse(text, exactNumbers);
    },
  };
};
