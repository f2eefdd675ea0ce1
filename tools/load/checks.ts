// What a load run must show; the same checks for `npm run load` and the short run in `npm test`.
import type { LoadResult } from './load.ts';

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
  ...(memory && result.memory.growth > 0.1
    ? [
        `the runner's memory grew ${(result.memory.growth * 100).toFixed(0)} % after warm-up ` +
          `(${result.memory.afterWarmUpMb.toFixed(0)} -> ${result.memory.atEndMb.toFixed(0)} MB)`,
      ]
    : []),
  ...result.killRounds.flatMap((round, index) =>
    round.missing.length > 0 ? [`kill round ${index + 1}: ${round.missing.length} acknowledged creates lost`] : [],
  ),
];
