// What a token's scopes are, read by one written rule (docs/identity-providers.md, "Scopes").
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

/**
 * RFC 6749 section 3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`, printable ASCII without space, `"` or `\`
 * (so a scope also reads safely inside a 403's JSON).
 */
export const isScopeToken = (value: string) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);

/**
 * A claim's scopes: a string is a space-separated list (RFC 6749 section 3.3, RFC 9068 section 2.2.3); an array lists
 * one scope per element (Okta's `scp`, Entra ID's `roles`). An element or word that is not a scope token (a space
 * inside an array's element, a quote, a control character, anything not ASCII) grants nothing: it is neither split
 * into scopes nor kept, so no route's scope can be reached through it and no two lists read alike.
 */
const scopeTokens = (claim: unknown): string[] => {
  const items = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return items.filter((item): item is string => typeof item === 'string' && isScopeToken(item));
};

/**
 * The token's scopes, each once: `scope` (a space-separated string: Cognito, Auth0, Keycloak, RFC 9068), and `scp` (a
 * space-separated string in Entra ID, an array in Okta). A token with neither is an app-only token of Entra ID, whose
 * application permissions are its `roles` (Entra's access token claims reference): they count then, and only then, so
 * a user's roles never stand in for the scopes a client was granted.
 */
export const scopesOf = (payload: JwtPayload): string[] => [
  ...new Set(
    payload.scope === undefined && payload.scp === undefined
      ? scopeTokens(payload.roles)
      : [...scopeTokens(payload.scope), ...scopeTokens(payload.scp)],
  ),
];
