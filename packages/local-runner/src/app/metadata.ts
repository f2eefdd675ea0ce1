// What an app may tell the runner through a function's template Metadata (docs/configuration.md, "What an app tells
// the runner").
// A construct writes it; the runner reads it. The key is the interface: an app writes it without importing the runner
// (a deployed stack has no reason to depend on a development tool).

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
