// A function URL's pipeline ("Invoking Lambda function URLs"): its CORS preflight, answered by the URL itself
// (http/cors.ts: "Lambda automatically adds the CORS headers to all responses through the function URL"; the URL's
// take precedence over the function's), then limits, authorize (AWS_IAM: SigV4; NONE: 403 when the function's
// permissions grant the public no access, app/url-permissions.ts), integrate and respond, each phase in the file of
// its name. Every path and method reaches the function; a phase that answers ends the request.
import { randomUUID } from 'node:crypto';
import type { Pipeline, UrlDeployment } from '../deployment.ts';
import type { Exchange } from '../exchange.ts';
import { isPreflight, preflightAnswer, withCors } from '../http/cors.ts';
import type { HttpResponse } from '../responses.ts';
import { authorize } from './authorize.ts';
import { integrate } from './integrate.ts';
import { withinLimits } from './limits.ts';
import { respond } from './respond.ts';

export const urlPipeline: Pipeline<UrlDeployment> = async (request, url, deployment) => {
  const { cors } = deployment.api;
  if (cors && isPreflight(request)) return preflightAnswer(cors, request, 'the function URL');
  const exchange: Exchange<UrlDeployment> = {
    request,
    url,
    deployment,
    requestId: randomUUID(),
    started: new Date(),
    notes: [],
  };
  const { notes, requestId } = exchange;
  const ended = (response: HttpResponse) => ({
    response: withCors(cors, request, {
      ...response,
      headers: [...response.headers, ['x-amzn-RequestId', requestId]],
    }),
    notes,
  });

  const body = await withinLimits(exchange);
  if ('responded' in body) return ended(body.responded);
  const caller = await authorize(exchange, body.next);
  if ('responded' in caller) return ended(caller.responded);
  const report = await integrate(exchange, body.next, caller.next);
  if ('responded' in report) return ended(report.responded);
  return ended(await respond(deployment.api, report.next, notes));
};
