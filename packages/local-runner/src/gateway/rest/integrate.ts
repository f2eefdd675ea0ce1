// A REST API's integrate phase: a Lambda proxy integration's function invoked (time-limit.ts), or a mock
// integration's response.
import type { ApiKey } from '../../app/api-keys.ts';
import type { MockRoute, ProxyRoute, RestRoute } from '../../app/rest-api.ts';
import type { InvocationReport } from '../../lambda/pool.ts';
import { integrationRequestIsBinary, isBase64, isBinaryMediaType, textResponseIsDecoded } from '../content-handling.ts';
import { type headersAsSent, iamIdentity, proxyEvent } from '../proxy-event.ts';
import type { HttpResponse } from '../responses.ts';
import type { IamCaller } from '../sigv4.ts';
import { invokeIntegration } from '../time-limit.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/**
 * The request as API Gateway passes it on (proxy-event.ts), made once: the REQUEST authorizer gets `request()` and the
 * function `delivered(...)`, the same event (its trace header, its extendedRequestId) with what the authorizer allowed
 * and the API key the method took ($context.identity.apiKey and apiKeyId: "for API methods that require an API key"),
 * and the IAM caller of an AWS_IAM method (its `identity`: proxy-event.ts, iamIdentity).
 */
export const proxyEvents = (
  exchange: Exchange,
  sent: {
    route: RestRoute;
    parameters: Record<string, string>;
    headers: ReturnType<typeof headersAsSent>;
    body: Buffer;
  },
) => {
  let made: ReturnType<typeof proxyEvent> | undefined;
  const request = () => {
    made ??= proxyEvent({
      api: exchange.deployment.api,
      stage: exchange.stage,
      request: exchange.request,
      url: exchange.url,
      ...sent,
      requestId: exchange.requestId,
      started: exchange.started,
      authorizer: undefined,
    });
    return made;
  };
  const delivered = (
    authorizer: Record<string, unknown> | undefined,
    apiKey: ApiKey | undefined,
    caller: IamCaller | undefined,
  ) => {
    const event = request();
    const { requestContext } = event;
    return {
      ...event,
      requestContext: {
        ...requestContext,
        identity: {
          ...requestContext.identity,
          ...(caller && iamIdentity(caller)),
          ...(apiKey && { apiKey: apiKey.value, apiKeyId: apiKey.id }),
        },
        ...(authorizer && { authorizer }),
      },
    };
  };
  return { request, delivered };
};

/** Invoke: the route's function with the proxy event, within the integration's time-out (504 past it). */
export const invoke = async (
  exchange: Exchange,
  route: ProxyRoute,
  event: unknown,
): Promise<Step<InvocationReport>> => {
  const pool = exchange.deployment.pools.get(route.functionId);
  if (!pool) return gatewayResponse(exchange, 'INTEGRATION_FAILURE', 'Internal server error');
  const report = await invokeIntegration(pool, route, event, exchange.notes);
  return report ? { next: report } : gatewayResponse(exchange, 'INTEGRATION_TIMEOUT', 'Endpoint request timed out');
};

/**
 * A mock integration (a CORS preflight): API Gateway answers itself, as the template says
 * (docs/local-runner.md, "Mock integrations"), with JSON's media type as it gives any answer without one. Its request
 * template cannot be applied to a binary payload, nor its response decoded when it is not base64: 500, a
 * configuration error (gateway/content-handling.ts).
 */
export const mockResponse = (exchange: Exchange, route: MockRoute): HttpResponse => {
  if (route.unanswered) {
    exchange.notes.push(
      'Execution failed due to configuration error: No match for output mapping and no default output mapping configured',
    );
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  const { binaryMediaTypes } = exchange.deployment.api;
  const requestIsBinary = isBinaryMediaType(exchange.request.headers['content-type'], binaryMediaTypes);
  if (integrationRequestIsBinary(requestIsBinary, route.requestContentHandling)) {
    exchange.notes.push('Execution failed due to configuration error: Unable to transform request');
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  const acceptIsBinary = isBinaryMediaType(exchange.request.headers.accept, binaryMediaTypes);
  const decoded = textResponseIsDecoded(acceptIsBinary, route.responseContentHandling);
  if (decoded && !isBase64(route.body)) {
    exchange.notes.push('Execution failed due to configuration error: Unable to transform response');
    return gatewayResponse(exchange, 'API_CONFIGURATION_ERROR', 'Internal server error').responded;
  }
  return {
    status: route.statusCode,
    headers: [
      ...(Object.keys(route.headers).some((name) => name.toLowerCase() === 'content-type')
        ? []
        : ([['Content-Type', 'application/json']] as [string, string][])),
      ...Object.entries(route.headers),
      ['x-amzn-RequestId', exchange.requestId],
    ],
    body: Buffer.from(route.body, decoded ? 'base64' : 'utf8'),
  };
};
