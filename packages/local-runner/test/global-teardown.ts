// Ends the run (helpers/test-run.ts): fails naming any process the tests left running, any event the runners delivered
// that Powertools' schemas refuse, and anything left in the system's temporary folder; removes the run's own.
import { endTestRun } from './helpers/test-run.ts';

export default endTestRun;
