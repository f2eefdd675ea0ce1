// The names of the authorizer's environment variables: read by config.ts, set by the CDK construct
// (infra/constructs/bearer-authorizer.ts), which also names them to the local runner in the function's Metadata.
export const authorizerVariableNames = {
  issuer: 'JWT_ISSUER',
  audience: 'JWT_AUDIENCE',
  jwksUri: 'JWKS_URI',
  routeScopes: 'ROUTE_SCOPES',
  algorithms: 'JWT_ALGORITHMS',
  clockToleranceSeconds: 'JWT_CLOCK_TOLERANCE_SECONDS',
} as const;
