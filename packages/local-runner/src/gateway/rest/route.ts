// A REST API's route phase: the request's path without the stage, then the resource and method it names (routes.ts),
// or API Gateway's response to an unknown route.
import type { RestApi } from '../../app/api.ts';
import type { Stage } from '../../app/cfn.ts';
import { refusedPath } from '../request-path.ts';
import { findRoute } from '../routes.ts';
import { isUnderStage } from '../stages.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/**
 * The request's URL without the stage: the deployed invoke URL has it (`https://<api>.execute-api.<region>.amazonaws.com/v1`),
 * so a client pointed at the runner by host alone calls `/v1/items`; the event is the same either way (`path`
 * without the stage, `requestContext.path` with it, as in captured events). Not when the API has a top-level
 * resource named like the stage: that path is the resource's.
 */
export const withoutStage = (url: URL, api: RestApi, stage: Stage) => {
  if (!isUnderStage(api, url.pathname, stage.name)) return url;
  const stripped = new URL(url);
  stripped.pathname = url.pathname.slice(stage.name.length + 1) || '/';
  return stripped;
};

/**
 * Route: the resource and method the request names, or API Gateway's response to an unknown route; a path the
 * runner refuses (request-path.ts) is 400, API Gateway's fallback for a 4xx of no type of its own.
 */
export const route = (exchange: Exchange): Step<NonNullable<ReturnType<typeof findRoute>>> => {
  const refused = refusedPath(exchange.request.url ?? '/');
  if (refused) {
    exchange.notes.push(`refused: ${refused}, whose resource on AWS no public source settles`);
    return gatewayResponse(exchange, 'DEFAULT_4XX', `Bad Request: ${refused} (refused by the local runner)`);
  }
  const found = findRoute(exchange.deployment.resources, exchange.segments, exchange.method);
  return found
    ? { next: found }
    : gatewayResponse(exchange, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
};
