// An HTTP API's pipeline ("Working with HTTP APIs"): its CORS preflight (cors.ts), then limits, route, authorize,
// integrate (payload format 2.0 or 1.0) and respond, each phase in the file of its name; a phase that answers ends the
// request, and every response but the preflight's carries the API's request id and CORS headers.
import { randomUUID } from 'node:crypto';
import { readBody } from '../../request-body.ts';
import type { HttpDeployment, Pipeline } from '../deployment.ts';
import type { HttpResponse } from '../responses.ts';
import { authorize } from './authorize.ts';
import { isPreflight, preflightAnswer, withCors } from './cors.ts';
import { eventV2 } from './events.ts';
import { integrate } from './integrate.ts';
import { ownResponse, respond } from './respond.ts';
import { route } from './route.ts';

/** The HTTP API payload quota: 10 MB. */
const maxPayloadBytes = 10 * 1024 * 1024;

export const httpPipeline: Pipeline<HttpDeployment> = async (request, url, deployment, stage) => {
  const { api } = deployment;
  const { cors } = api;
  if (cors && isPreflight(request)) return preflightAnswer(cors, request, 'API Gateway');
  const notes: string[] = [];
  const requestId = randomUUID();
  const ended = (response: HttpResponse) => ({
    response: withCors(cors, request, { ...response, headers: [...response.headers, ['apigw-requestid', requestId]] }),
    notes,
  });

  const body = await readBody(request, maxPayloadBytes);
  if (body === undefined) return ended(ownResponse(413));
  const found = route(api, stage, request, url, notes);
  if ('status' in found) return ended(ownResponse(found.status));
  const made = eventV2(api, stage, request, url, found.route, found.parameters, body);
  const exchange = { api, stage, request, url, ...found, made };
  const authorizer =
    found.route.authorizerId === undefined ? undefined : deployment.authorizers.get(found.route.authorizerId);
  const authorized = await authorize(authorizer, exchange);
  if ('status' in authorized) return ended(ownResponse(authorized.status));
  const pool = deployment.pools.get(found.route.functionId);
  if (!pool) return ended(ownResponse(500));
  const report = await integrate(pool, exchange, authorized.granted, notes);
  if (!report) return ended(ownResponse(503));
  return ended(respond(found.route, report, notes));
};
