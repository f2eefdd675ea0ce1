import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PayloadTooLargeError } from './errors.ts';
import { exactNumbers } from './exact-json.ts';

const decode = (body: string, isBase64Encoded: boolean) =>
  isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;

/** 413 for a body over `maxBytes`, checked before anything parses it. */
export const bodySizeLimit = (maxBytes: number): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event: { body, isBase64Encoded } }) => {
    if (body === null) return;
    const bytes = Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
    if (bytes > maxBytes) {
      throw new PayloadTooLargeError(`Request body is ${bytes} bytes; the limit is ${maxBytes} bytes`);
    }
  },
});

/**
 * @middy/http-json-body-parser (Content-Type check, prototype-pollution guard, malformed JSON), with numbers kept
 * exact: middy calls the reviver without JSON.parse's source-text argument, so once its checks have passed the same
 * text is parsed again with `exactNumbers` (a few microseconds for a body within the size limit).
 */
export const jsonBodyParser = (): MiddlewareObj<APIGatewayProxyEvent> => {
  const { before: middyParse } = httpJsonBodyParser<APIGatewayProxyEvent>();
  return {
    before: async (request: Request<APIGatewayProxyEvent>) => {
      const { body, isBase64Encoded } = request.event;
      await middyParse?.(request);
      if (typeof body === 'string') {
        (request.event as { body: unknown }).body = JSON.parse(decode(body, isBase64Encoded), exactNumbers);
      }
    },
  };
};
