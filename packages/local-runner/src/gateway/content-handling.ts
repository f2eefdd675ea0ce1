// API Gateway's content type conversions for REST APIs ("Content type conversions in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings-workflow.html): whether a
// payload is binary, by the API's binary media types, and what an integration's ContentHandling makes of it.
import type { ContentHandling } from '../app/rest-api.ts';
import { compiledPattern } from './compiled-pattern.ts';

/**
 * Whether the media type a header names matches one of the API's binary media types (`*` wildcards). Of an `Accept`
 * with several, "API Gateway honors only the first" (the page above). Without the header, the media type is
 * `application/json`, as API Gateway assumes for choosing a mapping template; that a request without a Content-Type
 * is binary under `*`/`*` is what AWS's execution log shows for a CORS preflight ("Method request body before
 * transformations: [Binary Data]", clebert/aws-simple issue 167, aws/serverless-application-model issue 553).
 */
export const isBinaryMediaType = (header: string | undefined, binaryMediaTypes: readonly string[]) => {
  const type = (header ?? 'application/json').split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((pattern) =>
    compiledPattern(
      `^${pattern
        .toLowerCase()
        .replace(/[.+^${}()|[\]\\?]/g, '\\$&')
        .replaceAll('*', '[^/]*')}$`,
    ).test(type),
  );
};

/**
 * The request table: the integration gets a binary payload when the request is binary and not converted to text, or
 * when it is converted to binary. A mapping template (a mock's) cannot be applied to one: 500.
 */
export const integrationRequestIsBinary = (requestIsBinary: boolean, handling: ContentHandling) =>
  handling === 'CONVERT_TO_BINARY' || (requestIsBinary && handling !== 'CONVERT_TO_TEXT');

/**
 * The response table, for an integration response that is text (a mock's): base64-decoded into the method response
 * when converted to binary, or when the first `Accept` is a binary media type and nothing converts it to text.
 */
export const textResponseIsDecoded = (acceptIsBinary: boolean, handling: ContentHandling) =>
  handling === 'CONVERT_TO_BINARY' || (acceptIsBinary && handling !== 'CONVERT_TO_TEXT');

/** Standard base64 (RFC 4648 section 4), as a conversion to binary needs; anything else fails it (500). */
export const isBase64 = (text: string) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
