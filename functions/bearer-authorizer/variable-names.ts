// The names of the authorizer's environment variables: read by config.ts, set by the CDK construct
// (infra/constructs/bearer-authorizer.ts) and by the local runner's development issuer (infra/local/issuer/dev-issuer.ts).
export const authorizerEnvironment = {
  issuer: 'JWT_ISSUER',
  audience: 'JWT_AUDIENCE',
  jwksUri: 'JWKS_URI',
  requiredScope: 'REQUIRED_SCOPE',
  algorithms: 'JWT_ALGORITHMS',
  clockToleranceSeconds: 'JWT_CLOCK_TOLERANCE_SECONDS',
} as const;
