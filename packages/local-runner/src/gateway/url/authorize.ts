// A function URL's authorize phase: for AuthType NONE, what its function's permissions grant (url-permissions.ts);
// for AuthType AWS_IAM ("Invoking Lambda function URLs": "When your function URL receives a request, Lambda also
// calculates the SigV4 signature. Lambda processes the request only if the signatures match"): the request's
// Signature Version 4 signature (its Authorization header) computed again with the runner's credentials, by the
// check every kind of API shares (../sigv4.ts).
import type { IncomingMessage } from 'node:http';
import type { UrlDeployment } from '../deployment.ts';
import type { Exchange, Step } from '../exchange.ts';
import { checkSignature, type IamCaller } from '../sigv4.ts';
import { ownResponse } from './respond.ts';

export type { IamCaller } from '../sigv4.ts';

/**
 * The caller of `request` (its `url`, its `body`) when its SigV4 signature is the one the runner's credentials make
 * for it (service `lambda`, the runner's region: sigv4.ts); undefined otherwise (unsigned, another key, another
 * secret, a changed header, path, query or body): the URL then answers 403.
 */
export const signedCaller = async (
  request: IncomingMessage,
  url: URL,
  body: Buffer,
): Promise<IamCaller | undefined> => {
  const checked = await checkSignature(request, url, body, 'lambda');
  return 'caller' in checked ? checked.caller : undefined;
};

/**
 * Authorize: for AuthType AWS_IAM, the caller of the request (its `body` read whole), signed with the runner's
 * credentials (`signedCaller`), else the URL's 403; for NONE, no caller, once the function's resource-based policy
 * grants the public access (app/url-permissions.ts; "Control access to Lambda function URLs"), else the URL's 403.
 */
export const authorize = async (
  { deployment: { api }, request, url, notes }: Exchange<UrlDeployment>,
  body: Buffer,
): Promise<Step<IamCaller | undefined>> => {
  if (api.ungranted.length > 0) {
    notes.push(`NONE: the function's resource-based policy grants no one ${api.ungranted.join(' nor ')}`);
    return { responded: ownResponse(403) };
  }
  if (api.authType !== 'AWS_IAM') return { next: undefined };
  const caller = await signedCaller(request, url, body);
  if (caller) return { next: caller };
  notes.push("AWS_IAM: not signed with the runner's credentials (SigV4, access key id local)");
  return { responded: ownResponse(403) };
};
