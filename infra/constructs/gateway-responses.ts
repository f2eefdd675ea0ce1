import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { corsHeaders } from '../../functions/commons/cors.ts';
import { retryAfterSeconds } from '../../functions/commons/errors.ts';

/**
 * Every answer API Gateway makes itself, with its status (AWS's default unless said) and, where the default text
 * would mislead, a message. Each is given explicitly: a type left to DEFAULT_4XX/5XX would take that one's status.
 */
export const gatewayResponses: readonly {
  type: ResponseType;
  status: number;
  message?: string;
  headers?: Record<string, string>;
}[] = [
  { type: ResponseType.UNAUTHORIZED, status: 401 },
  // Only the authorizer denies (a valid token without a route's scopes); its context names what the token lacks. A
  // gateway response's template is not VTL: it substitutes variables, so it cannot pick the route's own scope.
  {
    type: ResponseType.ACCESS_DENIED,
    status: 403,
    message:
      "The token lacks a scope this operation needs; of this API's scopes it lacks: $context.authorizer.missingScopes",
  },
  { type: ResponseType.EXPIRED_TOKEN, status: 403 },
  { type: ResponseType.INVALID_API_KEY, status: 403 },
  { type: ResponseType.INVALID_SIGNATURE, status: 403 },
  { type: ResponseType.WAF_FILTERED, status: 403 },
  // API Gateway answers an unknown path or method as a missing token (403); to a client it is "not found".
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, message: 'Not found' },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, message: 'Not found' },
  { type: ResponseType.BAD_REQUEST_BODY, status: 400 },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, status: 400 },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, message: 'Request is too large' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415 },
  { type: ResponseType.THROTTLED, status: 429, message: 'Too many requests' },
  { type: ResponseType.QUOTA_EXCEEDED, status: 429, message: 'Too many requests' },
  { type: ResponseType.API_CONFIGURATION_ERROR, status: 500, message: 'Internal server error' },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, status: 500, message: 'Internal server error' },
  { type: ResponseType.AUTHORIZER_FAILURE, status: 500, message: 'Internal server error' },
  // The function could not be invoked (e.g. Lambda throttling): worth a retry, so 503 rather than AWS's 504.
  {
    type: ResponseType.INTEGRATION_FAILURE,
    status: 503,
    message: 'Service unavailable, please retry',
    headers: { 'Retry-After': String(retryAfterSeconds) },
  },
  { type: ResponseType.INTEGRATION_TIMEOUT, status: 504, message: 'Gateway timeout' },
  { type: ResponseType.DEFAULT_4XX, status: 400, message: 'Bad request' },
  // Also what a client gets when the function fails or answers malformed (AWS: 502 "Internal server error").
  { type: ResponseType.DEFAULT_5XX, status: 502, message: 'Bad gateway' },
];

/** The Error body as a gateway response template: `messageString` is already a quoted JSON string. */
const errorTemplate = (status: number, message?: string) =>
  `{"error": ${status}, "message": ${message === undefined ? '$context.error.messageString' : JSON.stringify(message)}}`;

/**
 * The `WWW-Authenticate` challenges of a bearer-protected API (RFC 6750 section 3; RFC 9110 section 15.5.2 requires
 * one on every 401). A gateway response's headers are static (a literal or a request parameter: "Gateway responses in
 * API Gateway", https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-gatewayResponse-definition.html),
 * so the 401 cannot tell a missing token from an invalid one: it carries the challenge without an error code, which
 * RFC 6750 asks for when no token was sent and allows when one was refused (`error="invalid_token"` is a SHOULD). The
 * 403 is only ever the authorizer's Deny for a valid token without the required scope: `insufficient_scope`.
 */
export const bearerChallenges = (realm: string, challengeScope: string): Record<string, string> => ({
  [ResponseType.UNAUTHORIZED.responseType]: `Bearer realm="${realm}"`,
  [ResponseType.ACCESS_DENIED.responseType]: `Bearer realm="${realm}", error="insufficient_scope"${
    challengeScope === '' ? '' : `, scope="${challengeScope}"`
  }`,
});

/**
 * Makes every gateway answer carry this API's Error body as JSON, its 401 and 403 their bearer challenges, and, with a
 * CORS origin, the CORS headers the functions' answers carry (without them a browser hides the error from its page).
 */
export const addGatewayResponses = (api: RestApi, challenges: Record<string, string>, corsOrigin?: string) => {
  for (const { type, status, message, headers = {} } of gatewayResponses) {
    const challenge = challenges[type.responseType];
    const responseHeaders = Object.entries({
      'Content-Type': 'application/json',
      ...corsHeaders(corsOrigin),
      ...headers,
      ...(challenge && { 'WWW-Authenticate': challenge }),
    });
    api.addGatewayResponse(type.responseType, {
      type,
      statusCode: String(status),
      // Static header values are single-quoted in API Gateway's mapping syntax.
      responseHeaders: Object.fromEntries(responseHeaders.map(([name, value]) => [name, `'${value}'`])),
      templates: { 'application/json': errorTemplate(status, message) },
    });
  }
};
