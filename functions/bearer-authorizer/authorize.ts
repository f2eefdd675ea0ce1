import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken } from './bearer.ts';
import { InvalidTokenError, type VerifiedToken } from './token-verifier.ts';

/**
 * The policy covers every method of the API on this stage, not only `methodArn`: API Gateway caches the result per
 * token and reuses it for every route, so a policy for one method would deny the next route with 403.
 */
const stageWide = (methodArn: string) => {
  const [apiId, stage] = methodArn.split(':').at(-1)?.split('/') ?? [];
  const prefix = methodArn.split(':').slice(0, -1).join(':');
  return `${prefix}:${apiId}/${stage}/*`;
};

const policy = (principalId: string, effect: 'Allow' | 'Deny', methodArn: string, context: Record<string, string>) => ({
  principalId,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageWide(methodArn) }],
  },
  context,
});

/** API Gateway answers 500 for an authorizer result larger than this (Lambda authorizer quotas). */
const maxResultBytes = 8 * 1024;

export interface AuthorizeDeps {
  verify: (token: string) => Promise<VerifiedToken>;
  /** A scope the token must carry; '' for none. */
  requiredScope: string;
}

/**
 * A TOKEN authorizer: Allow for a valid token (with the required scope), Deny (403) for a valid token without it.
 * A token that is not acceptable is an InvalidTokenError; the handler turns that into API Gateway's 401.
 */
export const authorize = async (
  event: APIGatewayTokenAuthorizerEvent,
  { verify, requiredScope }: AuthorizeDeps,
): Promise<APIGatewayAuthorizerResult> => {
  const token = bearerToken(event.authorizationToken);
  if (!token) throw new InvalidTokenError('no bearer token');
  const { sub, scopes, clientId } = await verify(token);
  const allowed = requiredScope === '' || scopes.includes(requiredScope);
  // Context values must be flat strings, numbers or booleans: they reach the function as requestContext.authorizer.
  const result = policy(sub, allowed ? 'Allow' : 'Deny', event.methodArn, { sub, scope: scopes.join(' '), clientId });
  // Claims too large to pass on are the token's problem (401), not a gateway failure (500).
  if (Buffer.byteLength(JSON.stringify(result)) > maxResultBytes) {
    throw new InvalidTokenError(`the authorizer result would be over ${maxResultBytes} bytes`);
  }
  return result;
};
