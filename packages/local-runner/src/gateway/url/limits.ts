// A function URL's limits phase, before anything else reads the request: its body, read whole.
import { readBody } from '../../request-body.ts';
import type { UrlDeployment } from '../deployment.ts';
import type { Exchange, Step } from '../exchange.ts';
import { ownResponse } from './respond.ts';

/** The request payload quota of a synchronous invocation ("Lambda quotas"): 6 MB. */
const maxPayloadBytes = 6 * 1024 * 1024;

/** Limits: the body, read whole (413 past the payload quota). */
export const withinLimits = async ({ request }: Exchange<UrlDeployment>): Promise<Step<Buffer>> => {
  const body = await readBody(request, maxPayloadBytes);
  if (body === undefined) return { responded: ownResponse(413) };
  return { next: body };
};
