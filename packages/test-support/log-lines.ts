/** A log to hand the local runner, whose lines a test can read and wait for (a fact, never a sleep). */
export const recordedLog = () => {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const next = (pattern: RegExp) => new Promise<string>((resolve) => waiters.push({ pattern, resolve }));
  return {
    lines,
    log: (line: string) => {
      lines.push(line);
      for (const waiter of waiters.filter(({ pattern }) => pattern.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    },
    /** The first line from now on that matches `pattern`. */
    next,
    /** What `pick` answers for the first line from the `from`th on (logged already or to come) it answers for. */
    picked: async <T>(pick: (line: string) => T | undefined, from = 0): Promise<T> => {
      let at = from;
      for (;;) {
        for (; at < lines.length; at += 1) {
          const found = pick(lines[at] as string);
          if (found !== undefined) return found;
        }
        // Any next line: the ones logged meanwhile are read from `at` on.
        await next(/(?:)/);
      }
    },
    /** Resolves once a line matching `pattern` was logged (at once when one was). */
    seen: (pattern: RegExp) =>
      lines.some((line) => pattern.test(line))
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ pattern, resolve: () => resolve() })),
  };
};
