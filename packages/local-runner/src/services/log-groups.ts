// A CloudWatch Logs log group as a target (an EventBridge rule's, CDK's CloudWatchLogGroup). CloudWatch Logs is not
// served: what AWS would write to the group as a log event ("the entire EventBridge event" unless the target's input
// says otherwise: CDK's LogGroupProps,
// https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_events_targets.LogGroupProps.html) is written to the
// runner's log, named by its group.
import { type Receiver, TargetError } from './targets.ts';

/** The receiving end of `arn:aws:logs:<region>:<account>:log-group:<name>` ARNs (a trailing `:*` or not). */
export const logGroupReceiver =
  (log: (line: string) => void): Receiver =>
  async (arn, delivery) => {
    const group = /:log-group:(.+?)(?::\*)?$/.exec(arn)?.[1];
    if (group === undefined) throw new TargetError(`${arn}: not a log group's ARN`);
    log(`CloudWatch Logs ${group} (from ${delivery.source}): ${delivery.body}`);
  };
