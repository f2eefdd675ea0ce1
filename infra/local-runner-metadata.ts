// What an app may tell the local runner through a function's template Metadata (docs/local-runner.md, "Functions").
// The runner is generic: it knows no product's variable names; a construct names them here. Outside infra/local/, so
// that the stack never imports the runner (.dependency-cruiser.mjs): deleting the runner breaks nothing that deploys.

/**
 * A function that verifies tokens of an issuer: the environment variables that take the issuer (`iss`), the audience
 * and the JWKS address, and optionally the variable holding the routes' scopes (a JSON list of `{"scopes": [...]}`).
 * Locally they point at the runner's development issuer, and its tokens carry every scope of those routes.
 */
export const tokenIssuerMetadataKey = 'local-runner:token-issuer';

export interface TokenIssuerVariables {
  issuer: string;
  audience: string;
  jwksUri: string;
  routeScopes?: string;
}
