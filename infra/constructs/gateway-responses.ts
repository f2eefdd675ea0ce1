import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';

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
  { type: ResponseType.ACCESS_DENIED, status: 403 },
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
    headers: { 'Retry-After': '1' },
  },
  { type: ResponseType.INTEGRATION_TIMEOUT, status: 504, message: 'Gateway timeout' },
  { type: ResponseType.DEFAULT_4XX, status: 400, message: 'Bad request' },
  // Also what a client gets when the function fails or answers malformed (AWS: 502 "Internal server error").
  { type: ResponseType.DEFAULT_5XX, status: 502, message: 'Bad gateway' },
];

/** The Error body as a gateway response template: `messageString` is already a quoted JSON string. */
const errorTemplate = (status: number, message?: string) =>
  `{"error": ${status}, "message": ${message === undefined ? '$context.error.messageString' : JSON.stringify(message)}}`;

/** Makes every gateway answer carry this API's Error body as JSON. */
export const addGatewayResponses = (api: RestApi) => {
  for (const { type, status, message, headers = {} } of gatewayResponses) {
    const responseHeaders = Object.entries({ 'Content-Type': 'application/json', ...headers });
    api.addGatewayResponse(type.responseType, {
      type,
      statusCode: String(status),
      // Static header values are single-quoted in API Gateway's mapping syntax.
      responseHeaders: Object.fromEntries(responseHeaders.map(([name, value]) => [name, `'${value}'`])),
      templates: { 'application/json': errorTemplate(status, message) },
    });
  }
};
