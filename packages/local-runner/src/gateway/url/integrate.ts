// A function URL's integrate phase: its function (of its alias, Qualifier) invoked with the URL's event, within the
// function's own timeout alone (pool.ts applies it): a function URL puts no time limit of its own on it. InvokeMode
// RESPONSE_STREAM: a streaming handler's response as it comes.
import type { InvocationReport } from '../../lambda/pool.ts';
import type { UrlDeployment } from '../deployment.ts';
import type { Exchange, Step } from '../exchange.ts';
import type { IamCaller } from '../sigv4.ts';
import { coldStartNotes } from '../time-limit.ts';
import { urlEvent } from './events.ts';
import { ownResponse } from './respond.ts';

/**
 * Integrate: the function's report for the URL's event of the request (its `body`, its signed `caller`), 502 without
 * the function; the request's log line gets its cold start.
 */
export const integrate = async (
  { deployment, request, url, requestId, notes }: Exchange<UrlDeployment>,
  body: Buffer,
  caller: IamCaller | undefined,
): Promise<Step<InvocationReport>> => {
  const { api } = deployment;
  const pool = deployment.pools.get(api.functionId);
  if (!pool) return { responded: ownResponse(502) };
  const event = urlEvent(api, request, url, body, requestId, caller);
  const report = await pool.invoke(event, {
    requestId,
    ...(api.qualifier && { qualifier: api.qualifier }),
    streamed: api.invokeMode === 'RESPONSE_STREAM',
  });
  notes.push(...coldStartNotes(api.functionId, report));
  return { next: report };
};
