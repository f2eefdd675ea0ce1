// After the whole run, the checks the runner's own run makes (packages/test-support/test-run.ts): no
// process a test started left running, every event the local runners delivered valid against the schemas of
// @aws-lambda-powertools/parser, nothing left in the system's temporary folder.
import { endTestRun } from 'test-support/test-run';

export default endTestRun;
