// The time limits API Gateway puts on the functions it invokes (an integration's TimeoutInMillis, an authorizer's
// 10 s), applied alike by every kind's gateway (REST, HTTP and WebSocket APIs, function URLs), with the notes a request's log line carries of an
// invocation (a time-out, a cold start).
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';

/** API Gateway's limit on a Lambda authorizer's run (REST, HTTP and WebSocket APIs alike). */
export const authorizerTimeoutMs = 10_000;

/**
 * `work`'s value, or undefined when it takes longer than `ms` (API Gateway's integration and authorizer time-outs).
 * The timer is cleared as soon as the work settles: a pending timer would keep the settled result alive for the rest
 * of `ms` — at hundreds of requests a second and 29 s, that held hundreds of megabytes.
 */
const withinTime = async <T>(work: Promise<T>, ms: number): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * `pool`'s function invoked with `event` (`qualifier`: of that alias) within `ms`: undefined past it. A debugged
 * function may be paused at a breakpoint: the gateway waits (pool.ts, `debugged`). `streamed`: a streaming handler's
 * response as it comes, `ms` counting to its start.
 */
export const invokeWithin = (
  pool: FunctionPool,
  event: unknown,
  qualifier: string | undefined,
  ms: number,
  streamed = false,
): Promise<InvocationReport | undefined> => {
  const invoked = pool.invoke(event, { ...(qualifier && { qualifier }), streamed });
  return pool.debugged ? invoked : withinTime(invoked, ms);
};

/** The note of an invocation that started its function's environment (its init time); none otherwise. */
export const coldStartNotes = (functionId: string, report: InvocationReport | undefined): string[] =>
  report?.initMs === undefined ? [] : [`cold start ${functionId}, init ${Math.round(report.initMs)} ms`];

/**
 * A route's function invoked with `event` within its integration's time-out (TimeoutInMillis): undefined past it.
 * `notes`, the request's log line, get the time-out or the cold start.
 */
export const invokeIntegration = async (
  pool: FunctionPool,
  route: { functionId: string; qualifier?: string | undefined; integrationTimeoutMs: number; streamed?: boolean },
  event: unknown,
  notes: string[],
): Promise<InvocationReport | undefined> => {
  const report = await invokeWithin(pool, event, route.qualifier, route.integrationTimeoutMs, route.streamed);
  if (!report) notes.push(`${route.functionId} did not answer within ${route.integrationTimeoutMs} ms`);
  notes.push(...coldStartNotes(route.functionId, report));
  return report;
};
