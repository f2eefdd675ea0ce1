// A REST API's authorize phase: the method's authorizer (authorizers/), then its API key.
import type { ApiKey } from '../../app/api-keys.ts';
import type { RestRoute } from '../../app/rest-api.ts';
import { requestAuthorizerParts } from '../authorizers/lambda-authorizer.ts';
import type { headersAsSent, proxyEvent } from '../proxy-event.ts';
import { executeApiArn } from '../request-path.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/**
 * Authorize: the route's authorizer decides (authorizers/authorizer.ts); what it allows reaches the function as
 * `authorizer`. A REQUEST authorizer gets the request's parts: `partsOf()`, the proxy event without its body.
 */
export const authorize = async (
  exchange: Exchange,
  { authorizerId, authorizationScopes }: RestRoute,
  headers: ReturnType<typeof headersAsSent>,
  partsOf: () => ReturnType<typeof proxyEvent>,
): Promise<Step<Record<string, unknown> | undefined>> => {
  if (authorizerId === undefined) return { next: undefined };
  const authorizer = exchange.deployment.authorizers.get(authorizerId);
  if (!authorizer) return gatewayResponse(exchange, 'AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');
  const { api } = exchange.deployment;
  const { name: stage } = exchange.stage;
  const { decision, notes = [] } = await authorizer.authorize({
    headers: headers.all,
    query: exchange.url.searchParams,
    methodArn: executeApiArn(api.apiId, stage, exchange.method, exchange.segments),
    stage,
    scopes: authorizationScopes,
    parts: () => requestAuthorizerParts(partsOf()),
  });
  exchange.notes.push(...notes);
  if (!decision.allowed) return gatewayResponse(exchange, decision.responseType, decision.message, decision.context);
  return { next: decision.authorizer };
};

/**
 * The API key, where the method requires one ("Choose an API key source in API Gateway"): the X-API-Key header
 * one of the API's keys for the stage (app/api-keys.ts), else 403 (INVALID_API_KEY). After the authorizer: the order
 * on AWS we have not seen (a key can come from the authorizer, which suggests it).
 */
export const checkApiKey = (exchange: Exchange, { apiKeyRequired }: RestRoute): Step<ApiKey | undefined> => {
  if (!apiKeyRequired) return { next: undefined };
  const { apiKeys } = exchange.deployment.api;
  const sent = exchange.request.headers['x-api-key'];
  const key = apiKeys.find(({ value, stages }) => value === sent && stages.includes(exchange.stage.name));
  return key ? { next: key } : gatewayResponse(exchange, 'INVALID_API_KEY', 'Forbidden');
};
