// An HTTP API's limits phase, before anything else reads the request: its body, read whole.
import { readBody } from '../../request-body.ts';
import type { Step } from '../exchange.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';

/** The HTTP API payload quota: 10 MB. */
const maxPayloadBytes = 10 * 1024 * 1024;

/** Limits: the body, read whole (413 past the payload quota). */
export const withinLimits = async ({ request }: HttpExchange): Promise<Step<Buffer>> => {
  const body = await readBody(request, maxPayloadBytes);
  if (body === undefined) return { responded: ownResponse(413) };
  return { next: body };
};
