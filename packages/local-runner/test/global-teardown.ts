// Ends the run (test-support/test-run): fails naming any process the tests left running, any event the runners delivered
// that Powertools' schemas refuse, and anything left in the system's temporary folder; removes the run's own.
import { endTestRun } from 'test-support/test-run';

export default endTestRun;
