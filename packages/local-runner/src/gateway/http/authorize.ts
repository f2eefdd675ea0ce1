// An HTTP API's authorize phase: AuthorizationType AWS_IAM's SigV4 signature (../sigv4.ts), or the route's
// authorizer (authorizers/: JWT, Lambda) asked with the request's parts, its refusal the HTTP API's own answer (401,
// 403, else 500).
import { requestAuthorizerParts } from '../authorizers/lambda-authorizer.ts';
import type { Step } from '../exchange.ts';
import { headersAsSent } from '../proxy-event.ts';
import { executeApiArn } from '../request-path.ts';
import { checkSignature, type IamCaller } from '../sigv4.ts';
import { authorizerParts, eventV1, type eventV2 } from './events.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';
import type { Found } from './route.ts';

/**
 * AuthorizationType AWS_IAM: `{ iam: caller }` (the 2.0 event's `requestContext.authorizer`, as "Working with AWS
 * Lambda proxy integrations for HTTP APIs" shows it) for a request signed with the runner's credentials for
 * `execute-api`, else 403 `{"message":"Forbidden"}`, whatever is wrong ("Control access to HTTP APIs with IAM
 * authorization in API Gateway"; docs/authorizers.md says what stays uncertain); undefined for a route without it. `body`, read
 * whole. No IAM policy is evaluated.
 */
export const authorizeIam = async (
  { request, url, notes }: HttpExchange,
  { route }: Found,
  body: Buffer,
): Promise<Step<{ iam: IamCaller } | undefined>> => {
  if (!route.iam) return { next: undefined };
  const checked = await checkSignature(request, url, body, 'execute-api');
  if ('caller' in checked) return { next: { iam: checked.caller } };
  notes.push(
    `AWS_IAM: ${checked.refused.reason} signature (SigV4 with access key id local, secret local, service execute-api)`,
  );
  return { responded: ownResponse(403) };
};

/**
 * Authorize: what the route's authorizer allows (the function's `requestContext.authorizer`; undefined without an
 * authorizer), or the API's answer instead (401, 403, else 500). `made`: the request's payload 2.0 event.
 */
export const authorize = async (
  { deployment, stage, request, url }: HttpExchange,
  { route, parameters, segments }: Found,
  made: ReturnType<typeof eventV2>,
): Promise<Step<Record<string, unknown> | undefined>> => {
  if (route.authorizerId === undefined) return { next: undefined };
  const authorizer = deployment.authorizers.get(route.authorizerId);
  if (!authorizer) return { responded: ownResponse(500) };
  const { decision } = await authorizer.authorize({
    headers: headersAsSent(request).all,
    query: url.searchParams,
    methodArn: executeApiArn(deployment.api.apiId, stage.name, request.method ?? 'GET', segments),
    stage: stage.name,
    scopes: route.authorizationScopes,
    parts: () => authorizerParts(made),
    // Payload 1.0: a REST API's REQUEST authorizer event ("Same as", the page says).
    partsV1: () => requestAuthorizerParts(eventV1(made, request, route, parameters, undefined)),
  });
  if (decision.allowed) return { next: decision.authorizer };
  return {
    responded: ownResponse(
      decision.responseType === 'UNAUTHORIZED' ? 401 : decision.responseType === 'ACCESS_DENIED' ? 403 : 500,
    ),
  };
};
