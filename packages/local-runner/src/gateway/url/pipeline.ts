// A function URL's pipeline ("Invoking Lambda function URLs"): its CORS preflight, answered by the URL itself
// (http/cors.ts: "Lambda automatically adds the CORS headers to all responses through the function URL"; the URL's
// take precedence over the function's), then limits, authorize (AWS_IAM: SigV4), integrate and respond, each phase in
// the file of its name. Every path and method reaches the function; a phase that answers ends the request.
import { randomUUID } from 'node:crypto';
import { readBody } from '../../request-body.ts';
import type { Pipeline, UrlDeployment } from '../deployment.ts';
import { isPreflight, preflightAnswer, withCors } from '../http/cors.ts';
import type { HttpResponse } from '../responses.ts';
import { signedCaller } from './authorize.ts';
import { urlEvent } from './events.ts';
import { integrate } from './integrate.ts';
import { ownResponse, respond } from './respond.ts';

/** The request payload quota of a synchronous invocation ("Lambda quotas"): 6 MB. */
const maxPayloadBytes = 6 * 1024 * 1024;

export const urlPipeline: Pipeline<UrlDeployment> = async (request, url, deployment) => {
  const { api } = deployment;
  const { cors } = api;
  if (cors && isPreflight(request)) return preflightAnswer(cors, request, 'the function URL');
  const notes: string[] = [];
  const requestId = randomUUID();
  const ended = (response: HttpResponse) => ({
    response: withCors(cors, request, {
      ...response,
      headers: [...response.headers, ['x-amzn-RequestId', requestId]],
    }),
    notes,
  });

  const body = await readBody(request, maxPayloadBytes);
  if (body === undefined) return ended(ownResponse(413));
  const caller = api.authType === 'AWS_IAM' ? await signedCaller(request, url, body) : undefined;
  if (api.authType === 'AWS_IAM' && !caller) {
    notes.push("AWS_IAM: not signed with the runner's credentials (SigV4, access key id local)");
    return ended(ownResponse(403));
  }
  const pool = deployment.pools.get(api.functionId);
  if (!pool) return ended(ownResponse(502));
  const event = urlEvent(api, request, url, body, requestId, caller);
  const report = await integrate(pool, api, event, requestId, notes);
  return ended(await respond(api, report, notes));
};
