import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken } from './bearer.ts';
import { type RouteScopes, routePolicy } from './route-policy.ts';
import { InvalidTokenError, type VerifiedToken } from './token-verifier.ts';

/** API Gateway answers 500 for an authorizer result larger than this (Lambda authorizer quotas). */
const maxResultBytes = 8 * 1024;

export interface AuthorizeDeps {
  verify: (token: string) => Promise<VerifiedToken>;
  /** The API's routes and the scopes each needs; undefined when the deployment checks no scopes. */
  routes: readonly RouteScopes[] | undefined;
}

/**
 * A TOKEN authorizer: for a valid token, a policy that allows the routes its scopes reach and denies (403) the others.
 * A token that is not acceptable is an InvalidTokenError; the handler turns that into API Gateway's 401.
 */
export const authorize = async (
  event: APIGatewayTokenAuthorizerEvent,
  { verify, routes }: AuthorizeDeps,
): Promise<APIGatewayAuthorizerResult> => {
  const token = bearerToken(event.authorizationToken);
  if (!token) throw new InvalidTokenError('no bearer token');
  const { sub, scopes, clientId } = await verify(token);
  const { statements, missingScopes } = routePolicy(event.methodArn, scopes, routes);
  const result = {
    principalId: sub,
    policyDocument: { Version: '2012-10-17', Statement: statements },
    // Flat strings: they reach the function as requestContext.authorizer, and the 403's gateway response reads
    // missingScopes (infra/constructs/gateway-responses.ts).
    context: { sub, scope: scopes.join(' '), clientId, missingScopes },
  };
  // Claims too large to pass on are the token's problem (401), not a gateway failure (500).
  if (Buffer.byteLength(JSON.stringify(result)) > maxResultBytes) {
    throw new InvalidTokenError(`the authorizer result would be over ${maxResultBytes} bytes`);
  }
  return result;
};
