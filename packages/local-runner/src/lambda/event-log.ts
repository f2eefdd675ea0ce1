// Every event the runner delivers to a function, kept when LOCAL_RUNNER_EVENT_LOG names a folder: one JSON line each,
// `{"functionId": ..., "event": ...}`, in a file per runner process. To replay one with `cdk-local-runner invoke`, or to check
// them all: the test suite checks each against @aws-lambda-powertools/parser's schemas (test/global-teardown.ts).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = process.env.LOCAL_RUNNER_EVENT_LOG;
const file = folder ? join(folder, `events-${process.pid}.jsonl`) : undefined;

/** Keeps one event (its JSON text), if the log is on; written at once, so that a runner killed loses none. */
export const recordEvent = (functionId: string, event: string) => {
  if (file) appendFileSync(file, `{"functionId":${JSON.stringify(functionId)},"event":${event}}\n`);
};
