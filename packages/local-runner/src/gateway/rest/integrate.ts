// A REST API's integrate phase: a Lambda proxy integration's function invoked (time-limit.ts); a mock's answer is
// mock.ts's, a non-proxy integration's integrated.ts's.
import type { ApiKey } from '../../app/api-keys.ts';
import type { ProxyRoute, RestRoute } from '../../app/rest-api.ts';
import type { InvocationReport } from '../../lambda/pool.ts';
import { type headersAsSent, iamIdentity, proxyEvent } from '../proxy-event.ts';
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
