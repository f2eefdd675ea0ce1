// What a load run must show; the same checks for `npm run load` and the short run in `npm test`.
import type { LoadResult } from './load.ts';

/**
 * How much a process's live memory (heap used plus external, after a full garbage collection) may grow between the
 * warm-up and the end of the load. Resident memory is not judged: V8 grows a young generation that is busy toward its
 * limit and keeps pages it may need again, which holds nothing alive (docs/reliability.md has the figures).
 */
export const memoryGrowthLimit = 0.1;

const memoryProblems = ({ memory }: LoadResult) => {
  const judged = memory.filter(({ growth }) => growth !== undefined);
  const unmeasured = (['runner', 'database', 'environment'] as const).filter(
    (kind) => !judged.some((one) => one.kind === kind),
  );
  return [
    ...(unmeasured.length > 0
      ? [`no memory judged for: ${unmeasured.join(', ')} (too few samples after warm-up)`]
      : []),
    ...judged
      .filter(({ growth = 0 }) => growth > memoryGrowthLimit)
      .map(
        ({ name, growth = 0, afterWarmUp, atEnd }) =>
          `${name}: its live memory after GC grew ${(growth * 100).toFixed(0)} % after warm-up ` +
          `(${afterWarmUp?.liveMb.toFixed(1)} -> ${atEnd?.liveMb.toFixed(1)} MB; at most ${memoryGrowthLimit * 100} %)`,
      ),
  ];
};

/** The checks a load result fails, in words; empty when it passes. Memory only where the run is long enough. */
export const loadProblems = (result: LoadResult, { memory }: { memory: boolean }): string[] => [
  ...(result.serverErrors > 0 ? [`${result.serverErrors} answers were 5xx`] : []),
  ...(result.socketErrors > 0 ? [`${result.socketErrors} requests failed on the socket`] : []),
  ...(result.unexpected.length > 0
    ? [`${result.unexpected.length} answers had an unexpected status, e.g. ${JSON.stringify(result.unexpected[0])}`]
    : []),
  ...(result.missing.length > 0
    ? [`${result.missing.length} plants answered 200 are missing, e.g. ${result.missing[0]}`]
    : []),
  ...(result.extra.length > 0
    ? [`${result.extra.length} plants are stored that no 200 answered, e.g. ${result.extra[0]}`]
    : []),
  ...(memory ? memoryProblems(result) : []),
  ...result.killRounds.flatMap((round, index) =>
    round.missing.length > 0 ? [`kill round ${index + 1}: ${round.missing.length} acknowledged creates lost`] : [],
  ),
];
