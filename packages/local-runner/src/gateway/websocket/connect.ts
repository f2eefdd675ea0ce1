// A WebSocket API's connect phase, before the upgrade is accepted: the `$connect` route's AWS_IAM signature (sigv4.ts,
// in the upgrade request's headers or as a presigned URL: anything wrong 403, "Control access to WebSocket APIs with IAM
// authorization", https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-control-access-iam.html)
// or REQUEST authorizer (authorizers/lambda-authorizer.ts, as a REST API's: identity sources missing 401, a Deny 403, a
// failure 500), then
// its function, whose status other than 2xx refuses the connection with that status (the `$connect` route in
// "Working with routes for WebSocket APIs"). A failed or timed-out function refuses it (502, 504).

import { failureOf } from '../../lambda/pool.ts';
import type { RefusalType } from '../authorizers/authorizer.ts';
import type { Step } from '../exchange.ts';
import { headersAsSent } from '../proxy-event.ts';
import { executeApiArn } from '../request-path.ts';
import type { BufferedResponse } from '../responses.ts';
import { checkSignature, type IamCaller } from '../sigv4.ts';
import { invokeIntegration } from '../time-limit.ts';
import type { ConnectionContext } from './connections.ts';
import { authorizerParts, connectEvent } from './events.ts';
import { refusal, type WebSocketExchange } from './exchange.ts';

/** The ARN an authorizer's policy is judged against: `arn:aws:execute-api:{region}:{account}:{api}/{stage}/$connect`. */
const connectArn = ({ apiId, stage }: ConnectionContext) => executeApiArn(apiId, stage.name, '$connect');

/** The status of an authorizer's refusal before the upgrade: 401, 403, else 500. */
const refusalStatus: Record<RefusalType, number> = {
  UNAUTHORIZED: 401,
  ACCESS_DENIED: 403,
  AUTHORIZER_FAILURE: 500,
  AUTHORIZER_CONFIGURATION_ERROR: 500,
};

/** What a connection is accepted with: what the `$connect` authorizer allowed, or the caller AWS_IAM checked. */
export interface Accepted {
  authorizer: Record<string, unknown> | undefined;
  iam: IamCaller | undefined;
}

/** AWS_IAM on `$connect`: the caller who signed the upgrade request, else the refusal (403) and why. */
const signedCaller = async ({ request, url, notes }: WebSocketExchange<ConnectionContext>) => {
  const checked = await checkSignature(request, url, Buffer.alloc(0), 'execute-api');
  if ('caller' in checked) return { caller: checked.caller, refused: undefined };
  notes.push(
    `AWS_IAM: ${checked.refused.reason} signature (SigV4 with access key id local, secret local, service execute-api)`,
  );
  return { caller: undefined, refused: refusal(403) };
};

/**
 * Connect: whether the exchange's connection (not yet accepted) is, with the caller AWS_IAM checked or what the
 * `$connect` authorizer allowed (`next`, for every event of the connection); or the upgrade's refusal.
 */
export const connect = async (
  exchange: WebSocketExchange<ConnectionContext>,
): Promise<Step<Accepted, BufferedResponse>> => {
  const { deployment, connection, request, url, notes } = exchange;
  const route = deployment.api.routes.find(({ routeKey }) => routeKey === '$connect');
  if (!route) return { next: { authorizer: undefined, iam: undefined } };
  let iam: IamCaller | undefined;
  if (route.iam) {
    const { caller, refused } = await signedCaller(exchange);
    if (refused) return { responded: refused };
    iam = caller;
  }
  // One request: the authorizer's event and the function's have the same request id.
  const event = connectEvent({ ...connection, iam }, request, url.searchParams);
  let authorizer: Record<string, unknown> | undefined;
  if (route.authorizerId !== undefined) {
    const asked = deployment.authorizers.get(route.authorizerId);
    if (!asked) return { responded: refusal(500) };
    const { decision, notes: authorizerNotes = [] } = await asked.authorize({
      headers: headersAsSent(request).all,
      query: url.searchParams,
      methodArn: connectArn(connection),
      stage: connection.stage.name,
      parts: () => authorizerParts(event),
    });
    notes.push(...authorizerNotes);
    if (!decision.allowed) {
      notes.push(`authorizer: ${decision.message}`);
      return { responded: refusal(refusalStatus[decision.responseType]) };
    }
    authorizer = decision.authorizer;
  }
  const pool = deployment.pools.get(route.functionId);
  if (!pool) return { responded: refusal(500) };
  const authorized = authorizer ? { ...event, requestContext: { ...event.requestContext, authorizer } } : event;
  const report = await invokeIntegration(pool, route, authorized, notes);
  if (!report) return { responded: refusal(504) };
  const { invocation } = report;
  if (invocation.outcome !== 'result') {
    notes.push(`${route.functionId} failed: ${failureOf(invocation)}`);
    return { responded: refusal(502) };
  }
  // A result without a status (none at all, as many $connect functions return) accepts the connection.
  const { statusCode } = (invocation.result ?? {}) as { statusCode?: unknown };
  const status = typeof statusCode === 'number' ? statusCode : 200;
  return status >= 200 && status < 300 ? { next: { authorizer, iam } } : { responded: refusal(status) };
};
