/**
 * `work`'s value, or undefined when it takes longer than `ms` (API Gateway's integration and authorizer time-outs).
 * The timer is cleared as soon as the work settles: a pending timer would keep the settled result alive for the rest
 * of `ms` — at hundreds of requests a second and 29 s, that held hundreds of megabytes.
 */
export const withinTime = async <T>(work: Promise<T>, ms: number): Promise<T | undefined> => {
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
