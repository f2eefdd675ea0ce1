// Cold starts measured from outside, as Lambda pays them: for each run a fresh Node process (cold-probe.mjs) loads a
// bundle and answers one event. The subjects are interleaved (run 1: a, b, c; run 2: b, c, a; ...), so that a change in
// the machine's speed during the benchmark falls on all of them alike.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const probe = new URL('./cold-probe.mjs', import.meta.url).pathname;

export interface ColdSubject {
  name: string;
  modulePath: string;
  exportName: string;
  /** The function's whole environment, as Lambda gives it (nothing of the benchmark's own). */
  env: Record<string, string>;
  /** The event of run n. */
  event: (run: number) => unknown;
  /** Throws if the answer is not the expected one: a cold start is only counted when it worked. */
  check: (answer: unknown) => void;
  /** Extra Node flags for this subject (a CPU profile). */
  nodeFlags?: string[];
}

export interface ColdTimes {
  /** From the process's start to the module loaded, per run. */
  loadedMs: number[];
  /** From the process's start to the first answer, per run. */
  answeredMs: number[];
}

export const runColdProbe = async (subject: ColdSubject, run: number, scratch: string) => {
  const eventFile = join(scratch, `event-${subject.name}-${run}.json`);
  const resultFile = join(scratch, `result-${subject.name}-${run}.json`);
  writeFileSync(eventFile, JSON.stringify(subject.event(run)));
  await promisify(execFile)(
    process.execPath,
    [...(subject.nodeFlags ?? []), probe, subject.modulePath, subject.exportName, eventFile, resultFile],
    { env: subject.env, cwd: scratch },
  );
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as {
    loadedMs: number;
    answeredMs: number;
    answer: unknown;
  };
  subject.check(result.answer);
  return result;
};

export const measureColdStarts = async (subjects: ColdSubject[], runs: number, scratch: string) => {
  const times = new Map<string, ColdTimes>(subjects.map((subject) => [subject.name, { loadedMs: [], answeredMs: [] }]));
  for (let run = 0; run < runs; run += 1) {
    for (let index = 0; index < subjects.length; index += 1) {
      const subject = subjects[(run + index) % subjects.length] as ColdSubject;
      const { loadedMs, answeredMs } = await runColdProbe(subject, run, scratch);
      const own = times.get(subject.name) as ColdTimes;
      own.loadedMs[run] = loadedMs;
      own.answeredMs[run] = answeredMs;
    }
  }
  return times;
};
