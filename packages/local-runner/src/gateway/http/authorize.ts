// An HTTP API's authorize phase: the route's authorizer (authorizers/: JWT, Lambda) asked with the request's parts,
// its refusal the HTTP API's own answer (401, 403, else 500).
import type { IncomingMessage } from 'node:http';
import type { HttpApi } from '../../app/api.ts';
import type { Stage } from '../../app/cfn.ts';
import type { HttpRoute } from '../../app/http-api.ts';
import type { Authorizer } from '../authorizers/authorizer.ts';
import { requestAuthorizerParts } from '../authorizers/lambda-authorizer.ts';
import { headersAsSent } from '../proxy-event.ts';
import { executeApiArn } from '../request-path.ts';
import { authorizerParts, eventV1, type eventV2 } from './events.ts';

/**
 * What the route's authorizer allows (the function's `requestContext.authorizer`; undefined without an authorizer),
 * or the status the API answers instead. `made`: the request's payload 2.0 event.
 */
export const authorize = async (
  authorizer: Authorizer | undefined,
  {
    api,
    stage,
    request,
    url,
    route,
    parameters,
    segments,
    made,
  }: {
    api: HttpApi;
    stage: Stage;
    request: IncomingMessage;
    url: URL;
    route: HttpRoute;
    parameters: Record<string, string>;
    segments: string[];
    made: ReturnType<typeof eventV2>;
  },
): Promise<{ status: 401 | 403 | 500 } | { granted: Record<string, unknown> | undefined }> => {
  if (route.authorizerId === undefined) return { granted: undefined };
  if (!authorizer) return { status: 500 };
  const { decision } = await authorizer.authorize({
    headers: headersAsSent(request).all,
    query: url.searchParams,
    methodArn: executeApiArn(api.apiId, stage.name, request.method ?? 'GET', segments),
    stage: stage.name,
    scopes: route.authorizationScopes,
    parts: () => authorizerParts(made),
    // Payload 1.0: a REST API's REQUEST authorizer event ("Same as", the page says).
    partsV1: () => requestAuthorizerParts(eventV1(made, request, route, parameters, undefined)),
  });
  if (decision.allowed) return { granted: decision.authorizer };
  return {
    status: decision.responseType === 'UNAUTHORIZED' ? 401 : decision.responseType === 'ACCESS_DENIED' ? 403 : 500,
  };
};
