// Starts the run (helpers/test-run.ts): its mark, a temporary folder of its own (TMPDIR, inherited by the test workers
// and every process they start) and the runners' event log, which global-teardown.ts checks.
import { startTestRun } from './helpers/test-run.ts';

export default () => startTestRun(['local-runner-']);
