// What this app tells the local runner through a function's template Metadata, and what the runner tells a synth: the
// interface the runner documents (packages/local-runner/docs/configuration.md, "What an app tells the runner", and
// docs/debugging.md), written here rather than imported, so that the stack never imports the runner
// (.dependency-cruiser.mjs): deleting the runner breaks nothing that deploys. test/infra/local-runner-metadata.test.ts
// holds the two to the same keys and shape.

/** The context value (`true`) the runner gives a synth for debugging (`--inspect`). */
export const inspectContextKey = 'local-runner:inspect';

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
