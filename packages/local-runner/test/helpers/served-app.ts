// A runner serving an app in process for the tests of a file (or describe): started in beforeAll, closed in afterAll,
// its log and its functions' log (`<function id>: <line>`) recorded for the tests to read and wait for.
import { afterAll, beforeAll } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import { type Runner, type RunnerOptions, startRunner } from '../../src/runner.ts';

export const servedBeforeAll = (synthesize: () => string, options: Partial<RunnerOptions> = {}) => {
  let started: Runner | undefined;
  let starting: Promise<Runner> | undefined;
  const log = recordedLog();
  const functionLog = recordedLog();
  // The bound on the synth and the start, not a measure: a fixture synthesized in the worker (aws-cdk-lib loaded) took
  // over 60 s with two workers on two cores, both busy.
  beforeAll(async () => {
    starting = startRunner({
      cloudAssemblyDir: synthesize(),
      port: 0,
      dataDir: undefined,
      maxWorkers: 1,
      log: log.log,
      functionLog: (functionId, line) => functionLog.log(`${functionId}: ${line}`),
      ...options,
    });
    started = await starting;
  }, 120_000);
  // Also after a beforeAll that timed out while the runner started: that start is awaited and closed, so that no
  // runner (its database process, its servers) outlives the file.
  afterAll(async () => {
    await (await starting?.catch(() => undefined))?.close();
  }, 120_000);
  return {
    log,
    functionLog,
    /** The runner (a test fails if it did not start). */
    get api(): Runner {
      if (!started) throw new Error('the runner did not start');
      return started;
    },
    /** The address of the API (or function URL) whose logical id is `id`, as the banner prints it. */
    urlOf(id: string): string {
      const found = this.api.apis.find(({ app }) => app.apiId === id);
      if (!found) throw new Error(`${id} is not served`);
      return found.url;
    },
  };
};

/** A line of a function's log (`<function id>: <line>`) holding JSON: the function's id and that object; else undefined. */
export const jsonLine = (line: string): { fn: string; line: Record<string, unknown> } | undefined => {
  const at = line.indexOf(': ');
  const brace = line.indexOf('{', at);
  if (at < 0 || brace < 0) return undefined;
  try {
    return { fn: line.slice(0, at), line: JSON.parse(line.slice(brace)) as Record<string, unknown> };
  } catch {
    return undefined;
  }
};
