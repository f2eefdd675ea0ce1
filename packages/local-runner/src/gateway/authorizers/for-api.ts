// An API's authorizers, each the object of its kind (authorizer.ts), made once per deployment: one verifier for its
// token authorizers (REST's user pools, HTTP's JWT), each Lambda authorizer with its function's pool (a WebSocket
// API's REQUEST authorizer is a REST API's in shape: lambda-authorizer.ts).
import type { Api } from '../../app/api.ts';
import { RunnerError } from '../../errors.ts';
import type { FunctionPool } from '../../lambda/pool.ts';
import type { TokenVerifier } from '../token-verification.ts';
import type { Authorizer } from './authorizer.ts';
import { HttpLambdaAuthorizer } from './http-lambda-authorizer.ts';
import { JwtAuthorizer } from './jwt-authorizer.ts';
import { LambdaAuthorizer } from './lambda-authorizer.ts';
import { UserPoolAuthorizer } from './user-pool-authorizer.ts';

/** `api`'s authorizers by logical id; `pools`: its functions' pools, by logical id. */
export const authorizersFor = (
  api: Api,
  pools: Map<string, FunctionPool>,
  verify: TokenVerifier,
): Map<string, Authorizer> => {
  const poolOf = (id: string, functionId: string) => {
    const pool = pools.get(functionId);
    if (!pool) throw new RunnerError(`${id}: its function ${functionId} is not in the template`);
    return pool;
  };
  const authorizers = new Map<string, Authorizer>();
  if (api.kind === 'rest')
    for (const authorizer of api.authorizers.values())
      authorizers.set(
        authorizer.id,
        authorizer.type === 'COGNITO_USER_POOLS'
          ? new UserPoolAuthorizer(authorizer, verify)
          : new LambdaAuthorizer(authorizer, poolOf(authorizer.id, authorizer.functionId)),
      );
  else if (api.kind === 'websocket')
    for (const authorizer of api.authorizers.values())
      authorizers.set(authorizer.id, new LambdaAuthorizer(authorizer, poolOf(authorizer.id, authorizer.functionId)));
  else if (api.kind === 'http')
    for (const authorizer of api.authorizers.values())
      authorizers.set(
        authorizer.id,
        authorizer.type === 'JWT'
          ? new JwtAuthorizer(authorizer, api, verify)
          : new HttpLambdaAuthorizer(authorizer, poolOf(authorizer.id, authorizer.functionId)),
      );
  return authorizers;
};
