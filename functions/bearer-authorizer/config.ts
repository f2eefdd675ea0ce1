// The authorizer's configuration, read once at cold start; a missing value fails the cold start with a clear message.
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { TokenVerifierConfig } from './token-verifier.ts';
import { authorizerVariableNames as names } from './variable-names.ts';

const issuer = getStringFromEnv({
  key: names.issuer,
  errorMessage: `${names.issuer} must name the trusted token issuer`,
});

export const config: TokenVerifierConfig & { requiredScope: string } = {
  issuer,
  audience: getStringFromEnv({
    key: names.audience,
    errorMessage: `${names.audience} must name the audience (or Cognito app client id) tokens are issued for`,
  }),
  // Cognito and most OIDC providers publish their keys here; set the JWKS URI for any other place.
  jwksUri: getStringFromEnv({ key: names.jwksUri, defaultValue: `${issuer.replace(/\/$/, '')}/.well-known/jwks.json` }),
  algorithms: getStringFromEnv({ key: names.algorithms, defaultValue: 'RS256,ES256' })
    .split(',')
    .map((algorithm) => algorithm.trim())
    .filter(Boolean),
  clockToleranceSeconds: getNumberFromEnv({ key: names.clockToleranceSeconds, defaultValue: 5 }),
  requiredScope: getStringFromEnv({ key: names.requiredScope, defaultValue: '' }),
};
