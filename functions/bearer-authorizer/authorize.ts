import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { VerifiedToken } from './token-verifier.ts';

const bearer = /^Bearer ([A-Za-z0-9_.~+/-]+=*)$/i;

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

/** Thrown for every credential that is not acceptable; API Gateway answers exactly this message with 401. */
export const unauthorized = () => new Error('Unauthorized');

export interface AuthorizeDeps {
  verify: (token: string) => Promise<VerifiedToken>;
  /** A scope the token must carry; '' for none. */
  requiredScope: string;
}

/**
 * A TOKEN authorizer: Allow for a valid token (with the required scope), Deny (403) for a valid token without it.
 * Invalid tokens make `verify` throw; the handler turns that into `unauthorized()`.
 */
export const authorize = async (
  event: APIGatewayTokenAuthorizerEvent,
  { verify, requiredScope }: AuthorizeDeps,
): Promise<APIGatewayAuthorizerResult> => {
  const token = bearer.exec(event.authorizationToken ?? '')?.[1];
  if (!token) throw unauthorized();
  const { sub, scopes, clientId } = await verify(token);
  const allowed = requiredScope === '' || scopes.includes(requiredScope);
  // Context values must be flat strings, numbers or booleans: they reach the function as requestContext.authorizer.
  return policy(sub, allowed ? 'Allow' : 'Deny', event.methodArn, { sub, scope: scopes.join(' '), clientId });
};
