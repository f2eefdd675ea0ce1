// An HTTP API's integrate phase: the route's function invoked (time-limit.ts) with the event of its payload format
// (events.ts), what the authorizer allowed in it.
import type { InvocationReport } from '../../lambda/pool.ts';
import type { Step } from '../exchange.ts';
import { invokeIntegration } from '../time-limit.ts';
import { eventV1, type eventV2 } from './events.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';
import type { Found } from './route.ts';

/**
 * Integrate: the route's function's report; 500 without its function, 503 past the integration's time-out. Payload
 * 1.0: an authorizer's result as its 1.0 example shows a JWT authorizer's (claims and scopes at its top).
 */
export const integrate = async (
  { deployment, request, notes }: HttpExchange,
  { route, parameters }: Found,
  made: ReturnType<typeof eventV2>,
  granted: Record<string, unknown> | undefined,
): Promise<Step<InvocationReport>> => {
  const pool = deployment.pools.get(route.functionId);
  if (!pool) return { responded: ownResponse(500) };
  const event =
    route.payloadVersion === '1.0'
      ? eventV1(made, request, route, parameters, (granted?.jwt as Record<string, unknown> | undefined) ?? granted)
      : granted
        ? { ...made, requestContext: { ...made.requestContext, authorizer: granted } }
        : made;
  const report = await invokeIntegration(pool, route, event, notes);
  return report ? { next: report } : { responded: ownResponse(503) };
};
