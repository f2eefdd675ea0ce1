// The authorizer's configuration, read once at cold start; a missing or impossible value fails the cold start with a
// clear message (the stack's synth refuses the same values: infra/app-context.ts).
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { defaultAlgorithms, parseAlgorithms } from './algorithms.ts';
import { parseRouteScopes, type RouteScopes } from './route-policy.ts';
import type { TokenVerifierConfig } from './token-verifier.ts';
import { authorizerVariableNames as names } from './variable-names.ts';

const jwksUri = getStringFromEnv({ key: names.jwksUri, defaultValue: '' });

export const config: TokenVerifierConfig & { routes: RouteScopes[] | undefined } = {
  issuer: getStringFromEnv({
    key: names.issuer,
    errorMessage: `${names.issuer} must name the trusted token issuer`,
  }),
  audience: getStringFromEnv({
    key: names.audience,
    errorMessage: `${names.audience} must name the audience (or Cognito app client id) tokens are issued for`,
  }),
  // Unset: where the issuer's OpenID Connect discovery document says (token-verifier.ts).
  jwksUri: jwksUri === '' ? undefined : jwksUri,
  algorithms: parseAlgorithms(
    getStringFromEnv({ key: names.algorithms, defaultValue: defaultAlgorithms }),
    names.algorithms,
  ),
  clockToleranceSeconds: getNumberFromEnv({ key: names.clockToleranceSeconds, defaultValue: 5 }),
  // Unset or empty: every valid token reaches every route (the deployment checks no scopes).
  routes: parseRouteScopes(getStringFromEnv({ key: names.routeScopes, defaultValue: '' }), names.routeScopes),
};
