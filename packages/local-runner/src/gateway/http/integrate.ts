// An HTTP API's integrate phase: the route's function invoked (time-limit.ts) with the event of its payload format
// (events.ts), what the authorizer allowed in it.
import type { IncomingMessage } from 'node:http';
import type { HttpRoute } from '../../app/http-api.ts';
import type { FunctionPool } from '../../lambda/pool.ts';
import { invokeIntegration } from '../time-limit.ts';
import { eventV1, type eventV2 } from './events.ts';

/**
 * The route's function's report, or undefined past the integration's time-out. Payload 1.0: an authorizer's result as
 * its 1.0 example shows a JWT authorizer's (claims and scopes at its top).
 */
export const integrate = (
  pool: FunctionPool,
  {
    request,
    route,
    parameters,
    made,
  }: {
    request: IncomingMessage;
    route: HttpRoute;
    parameters: Record<string, string>;
    made: ReturnType<typeof eventV2>;
  },
  granted: Record<string, unknown> | undefined,
  notes: string[],
) => {
  const event =
    route.payloadVersion === '1.0'
      ? eventV1(made, request, route, parameters, (granted?.jwt as Record<string, unknown> | undefined) ?? granted)
      : granted
        ? { ...made, requestContext: { ...made.requestContext, authorizer: granted } }
        : made;
  return invokeIntegration(pool, route, event, notes);
};
