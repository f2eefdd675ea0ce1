// How the authorizer may reach an issuer's address (its discovery document, its keys): read by its cold start
// (token-verifier.ts) and by the stack's synth (infra/app-context.ts), so both hold the same rule.
import { loopbackHosts } from '../commons/loopback.ts';

/**
 * `https`, as aws-jwt-verify requires; `http` for a loopback issuer only (the local runner's development issuer, or a
 * provider beside `npm start`), which no deployed function can reach; undefined for anything else.
 */
export const issuerTransport = (address: string): 'https' | 'http' | undefined => {
  const url = URL.parse(address);
  if (url?.protocol === 'https:') return 'https';
  return url?.protocol === 'http:' && loopbackHosts.has(url.hostname) ? 'http' : undefined;
};
