// API Gateway's Cognito user pool authorizer (COGNITO_USER_POOLS, "Control access to REST APIs using Amazon Cognito
// user pools as an authorizer"): a token of one of its pools in its header, valid (the checks of token-verification.ts:
// the key its kid names, issuer, expiry); without scopes on the method an ID token, with them an access token that
// carries one of them (re:Post "need access token as header in cognito", and AWS::ApiGateway::Method's
// AuthorizationScopes); anything else is 401. Locally no Cognito runs: the development issuer signs each pool's tokens
// (`cdk-local-runner token --pool`), under the pool's issuer URL.
import type { UserPoolAuthorizerDefinition } from '../../app/rest-api.ts';
import { poolIssuer } from '../../app/user-pools.ts';
import { bearerToken, claimsAsText, type TokenVerifier } from '../token-verification.ts';
import {
  type Authorizer,
  type AuthorizerDecision,
  type AuthorizerRequest,
  headerValues,
  refuse,
} from './authorizer.ts';

export class UserPoolAuthorizer implements Authorizer {
  readonly #definition: UserPoolAuthorizerDefinition;
  readonly #verify: TokenVerifier;

  constructor(definition: UserPoolAuthorizerDefinition, verify: TokenVerifier) {
    this.#definition = definition;
    this.#verify = verify;
  }

  /** The decision for `request` on a method of its `scopes` (AuthorizationScopes); the function gets the claims. */
  async authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision }> {
    const { scopes = [] } = request;
    const unauthorized = { decision: refuse('UNAUTHORIZED', 'Unauthorized') };
    const values = headerValues(request.headers, this.#definition.headerName);
    const [sent = ''] = values;
    const token = bearerToken(sent);
    const { validation } = this.#definition;
    if (values.length !== 1 || token === '' || (validation && !validation.test(sent))) return unauthorized;
    const claims = await this.#verify(token, this.#definition.poolIds.map(poolIssuer));
    if (!claims) return unauthorized;
    const granted = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    const fits =
      scopes.length === 0
        ? claims.token_use === 'id'
        : claims.token_use === 'access' && scopes.some((scope) => granted.includes(scope));
    if (!fits) return unauthorized;
    return { decision: { allowed: true, authorizer: { claims: claimsAsText(claims) } } };
  }
}
