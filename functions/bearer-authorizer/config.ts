// The authorizer's configuration, read once at cold start; a missing value fails the cold start with a clear message.
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { TokenVerifierConfig } from './token-verifier.ts';

const issuer = getStringFromEnv({ key: 'JWT_ISSUER', errorMessage: 'JWT_ISSUER must name the trusted token issuer' });

export const config: TokenVerifierConfig & { requiredScope: string } = {
  issuer,
  audience: getStringFromEnv({
    key: 'JWT_AUDIENCE',
    errorMessage: 'JWT_AUDIENCE must name the audience (or Cognito app client id) tokens are issued for',
  }),
  // Cognito and most OIDC providers publish their keys here; set JWKS_URI for any other place.
  jwksUri: getStringFromEnv({ key: 'JWKS_URI', defaultValue: `${issuer.replace(/\/$/, '')}/.well-known/jwks.json` }),
  algorithms: getStringFromEnv({ key: 'JWT_ALGORITHMS', defaultValue: 'RS256,ES256' })
    .split(',')
    .map((algorithm) => algorithm.trim())
    .filter(Boolean),
  clockToleranceSeconds: getNumberFromEnv({ key: 'JWT_CLOCK_TOLERANCE_SECONDS', defaultValue: 5 }),
  requiredScope: getStringFromEnv({ key: 'REQUIRED_SCOPE', defaultValue: '' }),
};
