// A REST API's authorize phase: the method's authorizer (authorizers/), then its API key.
import type { ApiKey } from '../../app/api-keys.ts';
import type { RestRoute } from '../../app/rest-api.ts';
import { requestAuthorizerParts } from '../authorizers/lambda-authorizer.ts';
import type { headersAsSent, proxyEvent } from '../proxy-event.ts';
import { executeApiArn } from '../request-path.ts';
import { checkSignature, type IamCaller, type SignatureRefusal } from '../sigv4.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/**
 * The gateway response API Gateway answers a refused signature with: its type (so an app's customized gateway
 * response applies), message and `x-amzn-ErrorType`. Unsigned: MISSING_AUTHENTICATION_TOKEN ("Gateway response types
 * for API Gateway": "including the cases when the client attempts to invoke an unsupported API method or resource",
 * and the knowledge center's "How do I troubleshoot signature mismatch errors ...": "If the API request isn't signed,
 * then you receive ... Missing Authentication Token"). The others: INVALID_SIGNATURE ("The gateway response for an
 * invalid AWS signature error"), with the knowledge center's messages; which type an incomplete header or another
 * access key falls under is not documented (docs/authorizers.md). The message: the table's, else the refusal's own.
 */
const signatureResponses: Record<SignatureRefusal['reason'], { type: string; errorType: string; message?: string }> = {
  missing: {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    errorType: 'MissingAuthenticationTokenException',
    message: 'Missing Authentication Token',
  },
  incomplete: { type: 'INVALID_SIGNATURE', errorType: 'IncompleteSignatureException' },
  unrecognized: {
    type: 'INVALID_SIGNATURE',
    errorType: 'UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  },
  invalid: { type: 'INVALID_SIGNATURE', errorType: 'InvalidSignatureException' },
};

/**
 * AuthorizationType AWS_IAM: the caller of a request signed with the runner's credentials for `execute-api`
 * (sigv4.ts), else API Gateway's 403 for why it is not; undefined for a method without it. `url`: the request's own
 * (its path with the stage, as the client signed it); `body`, read whole. No IAM policy is evaluated.
 */
export const authorizeIam = async (
  exchange: Exchange,
  { iam }: RestRoute,
  url: URL,
  body: Buffer,
): Promise<Step<IamCaller | undefined>> => {
  if (!iam) return { next: undefined };
  const checked = await checkSignature(exchange.request, url, body, 'execute-api');
  if ('caller' in checked) return { next: checked.caller };
  const { refused } = checked;
  const { type, errorType, message = 'message' in refused ? refused.message : '' } = signatureResponses[refused.reason];
  exchange.notes.push(`AWS_IAM: ${errorType} (SigV4 with access key id local, secret local, service execute-api)`);
  return gatewayResponse(exchange, type, message, undefined, errorType);
};

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
