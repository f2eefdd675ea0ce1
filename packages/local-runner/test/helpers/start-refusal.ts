// What the runner says when it refuses an app at start (a RunnerError's message), or 'started' when it starts anyway:
// then it is closed at once, so nothing of it outlives the test.
import { startRunner } from '../../src/runner.ts';

export const refusalAtStart = (cloudAssemblyDir: string) =>
  startRunner({ cloudAssemblyDir, port: 0, dataDir: undefined, maxWorkers: 1, log: () => undefined }).then(
    async (started) => {
      await started.close();
      return 'started';
    },
    (error: Error) => error.message,
  );
