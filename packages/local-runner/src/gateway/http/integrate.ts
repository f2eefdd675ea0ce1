// An HTTP API's integrate phase: the route's function invoked (time-limit.ts) with the event of its payload format
// (events.ts), what the authorizer allowed in it.
import type { HttpLambdaRoute } from '../../app/http-api.ts';
import type { InvocationReport } from '../../lambda/pool.ts';
import type { Step } from '../exchange.ts';
import { iamIdentity } from '../proxy-event.ts';
import type { IamCaller } from '../sigv4.ts';
import { invokeIntegration } from '../time-limit.ts';
import { eventV1, type eventV2 } from './events.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';
import type { Found } from './route.ts';

/**
 * The payload 1.0 event: an authorizer's result as its 1.0 example shows a JWT authorizer's (claims and scopes at its
 * top); an IAM caller (`granted.iam`) in `identity`, as a REST API's (proxy-event.ts, iamIdentity).
 */
const eventOfVersion1 = (
  made: ReturnType<typeof eventV2>,
  request: HttpExchange['request'],
  { route, parameters }: Found,
  granted: Record<string, unknown> | undefined,
) => {
  const caller = route.iam ? (granted?.iam as IamCaller | undefined) : undefined;
  if (!caller)
    return eventV1(made, request, route, parameters, (granted?.jwt as Record<string, unknown> | undefined) ?? granted);
  const event = eventV1(made, request, route, parameters, undefined);
  const { requestContext } = event;
  return {
    ...event,
    requestContext: { ...requestContext, identity: { ...requestContext.identity, ...iamIdentity(caller) } },
  };
};

/**
 * Integrate: the route's function's report; 500 without its function, 503 past the integration's time-out.
 */
export const integrate = async (
  { deployment, request, notes }: HttpExchange,
  found: Found & { route: HttpLambdaRoute },
  made: ReturnType<typeof eventV2>,
  granted: Record<string, unknown> | undefined,
): Promise<Step<InvocationReport>> => {
  const { route } = found;
  const pool = deployment.pools.get(route.functionId);
  if (!pool) return { responded: ownResponse(500) };
  const event =
    route.payloadVersion === '1.0'
      ? eventOfVersion1(made, request, found, granted)
      : granted
        ? { ...made, requestContext: { ...made.requestContext, authorizer: granted } }
        : made;
  const report = await invokeIntegration(pool, route, event, notes);
  return report ? { next: report } : { responded: ownResponse(503) };
};
