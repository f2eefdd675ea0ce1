// The signature algorithms the authorizer can verify: read by its cold start (config.ts) and by the stack's synth
// (infra/app-context.ts), so a setting that could never verify a token stops both, naming it.

/**
 * RFC 7518 section 3.1's asymmetric algorithms, and RFC 9864's fully specified `Ed25519` (RFC 8037's `EdDSA` on the
 * Ed25519 curve). Symmetric ones (`HS*`) are never trusted: their key is a secret the issuer would have to share.
 */
const supportedAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type Algorithm = (typeof supportedAlgorithms)[number];

/** What most issuers sign with: Cognito, Auth0, Entra ID and Okta sign RS256; the development issuer ES256. */
export const defaultAlgorithms = 'RS256,ES256';

const isSupported = (algorithm: string): algorithm is Algorithm =>
  (supportedAlgorithms as readonly string[]).includes(algorithm);

/** The algorithms of `list` (comma-separated), or an Error naming `settingName` and those that cannot be verified. */
export const parseAlgorithms = (list: string, settingName: string): Algorithm[] => {
  const algorithms = list
    .split(',')
    .map((algorithm) => algorithm.trim())
    .filter(Boolean);
  const unsupported = algorithms.filter((algorithm) => !isSupported(algorithm));
  if (unsupported.length > 0 || algorithms.length === 0) {
    throw new Error(
      `${settingName} must list asymmetric algorithms among ${supportedAlgorithms.join(', ')}` +
        (unsupported.length > 0 ? `, not ${unsupported.join(', ')}` : ''),
    );
  }
  return algorithms.filter(isSupported);
};
