// Starts the run (test-support/test-run): its mark, a temporary folder of its own (TMPDIR, inherited by the test workers
// and every process they start) and the runners' event log, which global-teardown.ts checks.
import { startTestRun } from 'test-support/test-run';

export default () => startTestRun(['local-runner-']);
