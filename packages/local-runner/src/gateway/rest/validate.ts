// A REST API's validate phase: the method's request validator (request-validation.ts).
import type { RestRoute } from '../../app/rest-api.ts';
import type { headersAsSent } from '../proxy-event.ts';
import { validationFailure } from '../request-validation.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/**
 * Validate: the method's request validator, after its authorizer (the order of API Gateway's execution logs: the
 * authorizer, then "Request validation failed"), before the integration.
 */
export const validate = (
  exchange: Exchange,
  { validation }: RestRoute,
  headers: ReturnType<typeof headersAsSent>,
  pathParameters: Record<string, string>,
  body: Buffer,
): Step<undefined> => {
  if (!validation) return { next: undefined };
  const failure = validationFailure(validation, {
    headers: headers.all,
    query: exchange.url.searchParams,
    pathParameters,
    contentType: exchange.request.headers['content-type'],
    body,
  });
  if (!failure) return { next: undefined };
  exchange.notes.push(`request validation failed: ${failure.message}`);
  return gatewayResponse(exchange, failure.responseType, failure.message);
};
