// A function URL's integrate phase: its function (of its alias, Qualifier) invoked with the URL's event, within the
// function's own timeout alone (pool.ts applies it): a function URL puts no time limit of its own on it. InvokeMode
// RESPONSE_STREAM: a streaming handler's response as it comes.
import type { UrlApi } from '../../app/api.ts';
import type { FunctionPool, InvocationReport } from '../../lambda/pool.ts';
import { coldStartNotes } from '../time-limit.ts';

/** The function's report; `notes`, the request's log line, get its cold start. */
export const integrate = async (
  pool: FunctionPool,
  api: UrlApi,
  event: unknown,
  requestId: string,
  notes: string[],
): Promise<InvocationReport> => {
  const report = await pool.invoke(event, {
    requestId,
    ...(api.qualifier && { qualifier: api.qualifier }),
    streamed: api.invokeMode === 'RESPONSE_STREAM',
  });
  notes.push(...coldStartNotes(api.functionId, report));
  return report;
};
