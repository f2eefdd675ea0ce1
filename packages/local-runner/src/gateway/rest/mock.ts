// A REST API's MOCK integration ("Mock integrations for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration.html): API Gateway answers
// itself. The request template the content type selects (PassthroughBehavior as a non-proxy integration's) is rendered
// by the mapping engine; its `statusCode` selects the integration response, whose template, parameters and the
// templates' overrides make the method response (integrated.ts). Without a request template, the default response.
// Its request template cannot be applied to a binary payload, nor its response decoded when it is not base64: 500, a
// configuration error (gateway/content-handling.ts).
import type { MockRoute } from '../../app/rest-api.ts';
import { integrationRequestIsBinary, isBase64, isBinaryMediaType, textResponseIsDecoded } from '../content-handling.ts';
import { MappingError, type MappingInput, renderTemplate } from '../mapping/template.ts';
import type { HttpResponse } from '../responses.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';
import { configurationError, methodResponse, requestTemplate, selectedResponse } from './integrated.ts';

/**
 * The integer `statusCode` of a rendered request template: JSON's, else as `statusCode: N` in an object that is not
 * JSON, which AWS accepts (CDK writes `{ statusCode: 200 }` for CORS preflights; localstack/localstack pull request
 * 11967, its test recorded on AWS). A string ("200") is not one (aws/aws-cdk issue 5997: "statusCode should be a
 * number"). Undefined when there is none.
 */
const mockStatusCode = (rendered: string): number | undefined => {
  let value: unknown;
  try {
    const parsed: unknown = JSON.parse(rendered);
    value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).statusCode : undefined;
  } catch {
    value = Number(/[{,]\s*(["']?)statusCode\1\s*:\s*(-?\d+)\s*[,}]/.exec(rendered)?.[2]);
  }
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
};

/** The status the request template gives (undefined: no template, the default response), or the gateway's answer. */
const requestedStatus = (exchange: Exchange, route: MockRoute, input: MappingInput): Step<number | undefined> => {
  const template = requestTemplate(route, exchange.request.headers['content-type']);
  if ('responded' in template) return gatewayResponse(exchange, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type');
  if (template.next === undefined) return { next: undefined };
  let rendered: string;
  try {
    rendered = renderTemplate(template.next, input);
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    exchange.notes.push(error.message);
    return gatewayResponse(exchange, 'BAD_REQUEST_BODY', error.message);
  }
  const status = mockStatusCode(rendered);
  if (status !== undefined) return { next: status };
  return {
    responded: configurationError(
      exchange,
      'Unable to parse statusCode. It should be an integer that is defined in the request template.',
    ),
  };
};

/** The method response of the selected integration response, base64-decoded where the conversion says. */
const answer = (exchange: Exchange, route: MockRoute, status: number | undefined, input: MappingInput) => {
  const response = selectedResponse(route.responses, status === undefined ? undefined : String(status));
  if (!response)
    return configurationError(exchange, 'No match for output mapping and no default output mapping configured');
  let answered: HttpResponse;
  try {
    answered = methodResponse(
      exchange,
      response,
      { status: status ?? response.statusCode, headers: {}, body: '' },
      input,
    );
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    return configurationError(exchange, `Unable to transform response (${error.message})`);
  }
  const acceptIsBinary = isBinaryMediaType(exchange.request.headers.accept, exchange.deployment.api.binaryMediaTypes);
  if (!textResponseIsDecoded(acceptIsBinary, response.contentHandling)) return answered;
  const text = answered.body.toString('utf8');
  if (!isBase64(text)) return configurationError(exchange, 'Unable to transform response');
  return { ...answered, body: Buffer.from(text, 'base64') };
};

/** The mock's answer to the request, after the method's authorizer and validation (pipeline.ts). */
export const mockResponse = (exchange: Exchange, route: MockRoute, input: MappingInput): HttpResponse => {
  const requestIsBinary = isBinaryMediaType(
    exchange.request.headers['content-type'],
    exchange.deployment.api.binaryMediaTypes,
  );
  if (integrationRequestIsBinary(requestIsBinary, route.requestContentHandling))
    return configurationError(exchange, 'Unable to transform request');
  const status = requestedStatus(exchange, route, input);
  if ('responded' in status) return status.responded;
  return answer(exchange, route, status.next, input);
};
