// The time from a write (just before the SDK's call) to the start of the function it reaches, for `npm run bench`:
// the app's function logs, as it starts, `STARTED {"at": <ms>, "id": <what it was given>}`; one write at a time, after
// two that warm the function. Each source (a bucket's notification, a table's stream) gives its app and its write.
import { type Runner, startRunner } from 'cdk-local-runner';

/** Latency samples (one write at a time). */
const samples = 100;

/** The function's log line, for the app's handler to print: `STARTED {"at": ..., "id": ...}`. */
export const startedLine = (idExpression: string) =>
  `console.log('STARTED ' + JSON.stringify({ at: Date.now(), id: ${idExpression} }));`;

/** Serves `cloudAssemblyDir`; `write(runner, id)` writes what reaches the function with `id`: ms per write. */
export const timeToFunctionStart = async (
  cloudAssemblyDir: string,
  write: (runner: Runner, id: string) => Promise<void>,
): Promise<number[]> => {
  const startedAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const runner = await startRunner({
    cloudAssemblyDir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 4,
    log: () => undefined,
    functionLog: (_name, line) => {
      const json = /STARTED (\{.*\})/.exec(line)?.[1];
      if (json === undefined) return;
      const { at, id } = JSON.parse(json) as { at: number; id: string };
      startedAt.set(id, at);
      waiting.get(id)?.();
    },
  });
  const started = (id: string) =>
    new Promise<number>((resolve) => {
      const done = () => resolve(startedAt.get(id) as number);
      if (startedAt.has(id)) done();
      else waiting.set(id, done);
    });
  try {
    const timings: number[] = [];
    for (let sample = 0; sample < samples + 2; sample += 1) {
      const id = `item-${sample}`;
      const before = Date.now();
      await write(runner, id);
      const ms = (await started(id)) - before;
      if (sample >= 2) timings.push(ms);
    }
    return timings;
  } finally {
    await runner.close();
  }
};
