// The TOKEN authorizer: verifies the bearer JWT and answers an IAM policy for the API.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { logDebug, logger } from '../commons/logger.ts';
import { authorize } from './authorize.ts';
import { config } from './config.ts';
import { authorizerFailedMessage } from './log-messages.ts';
import { createTokenVerifier, InvalidTokenError } from './token-verifier.ts';

const verify = createTokenVerifier(config);

/**
 * The failure API Gateway answers 401 for: exactly this message (any other error is a 500). Lambda's Node.js runtime
 * logs every failed invocation itself, at ERROR with the error's stack ("Invoke Error"); a refused token is no fault of
 * this code, so the error carries no stack, and that log line is one line (docs/operations.md).
 */
const unauthorized = (): Error => {
  const error = new Error('Unauthorized');
  delete error.stack;
  return error;
};

const authorizeOrRefuse = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    const result = await authorize(event, { verify, routes: config.routes });
    // API Gateway's access log records the principal and the answer of every request (and caches this result).
    logDebug('Authorized', { principalId: result.principalId, missingScopes: result.context?.missingScopes });
    return result;
  } catch (error) {
    // Never log the token; the reason is enough to tell an expired token from a forged one.
    if (error instanceof InvalidTokenError) {
      // The access log records the 401 already; the reason helps when debugging an issuer.
      logDebug('Token refused', { reason: error.message });
      throw unauthorized();
    }
    logger.error(authorizerFailedMessage, { error: error as Error });
    throw new Error(authorizerFailedMessage);
  }
};

export const handler = middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>({
  // No early timeout (a timer and an abort signal per invocation): the only waits, for the issuer's discovery document
  // and keys, are bounded well within the function's timeout (token-verifier.ts).
  timeoutEarlyInMillis: 0,
})
  .use(injectLambdaContext(logger))
  .handler(authorizeOrRefuse);
