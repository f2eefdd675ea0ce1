// The template's custom resources (`Custom::<Name>` and `AWS::CloudFormation::CustomResource`): code CloudFormation
// runs at deployment, through the function or topic of their ServiceToken ("Custom resources", CloudFormation User
// Guide, https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-custom-resources.html). Locally
// nothing deploys, so each is one of three:
// - reproduced: the runner does what its handler does (`Custom::S3BucketNotifications`, read in
//   s3-notification-resources.ts); its handler function is then no function of the app's, neither served nor listed;
// - without a local effect: what its handler does changes nothing the runner serves (a log group's retention, a
//   bucket emptied when its stack is deleted, a VPC's default security group's rules);
// - any other is refused, naming it: what it would have done at deployment (objects put in a bucket, an SDK call,
//   items written in a table) would be missing locally, and the app would not be served as it is deployed.
import { type CfnResource, getAttOf, props, shown, UnsupportedTemplateError } from './cfn.ts';
import type { ValueContext } from './intrinsics.ts';

/** The custom resources whose handler the runner reproduces (s3-notification-resources.ts). */
const reproducedCustomResources = ['Custom::S3BucketNotifications'];

/** The aws-cdk-lib custom resources whose handler changes nothing the runner serves, and what it does. */
const withoutLocalEffect: Record<string, string> = {
  // aws-cdk-lib/aws-logs LogRetention (a function's `logRetention`).
  'Custom::LogRetention': "sets a log group's retention",
  // aws-cdk-lib/aws-s3 Bucket's `autoDeleteObjects`.
  'Custom::S3AutoDeleteObjects': 'empties a bucket when its stack is deleted',
  // aws-cdk-lib/aws-events-targets CloudWatchLogGroup (a rule's log group target): CloudWatch Logs is not served.
  'Custom::CloudwatchLogResourcePolicy': 'lets EventBridge write to a log group (a CloudWatch Logs resource policy)',
  // aws-cdk-lib/aws-ec2 Vpc's `restrictDefaultSecurityGroup`.
  'Custom::VpcRestrictDefaultSG': "removes the rules of a VPC's default security group",
};

const isCustomResource = (type: string) =>
  type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource';

/** The logical id of the function a custom resource's ServiceToken names (`Fn::GetAtt [id, Arn]`), if it does. */
const handlerIdOf = (resource: CfnResource) => {
  const token = getAttOf(props(resource).ServiceToken);
  return token?.[1] === 'Arn' ? token[0] : undefined;
};

/**
 * The functions of `resources` that are the handlers of reproduced custom resources (by logical id), with why: the
 * runner does their work itself, so they are no function of the app's.
 */
export const reproducedHandlersOf = (resources: Record<string, CfnResource>) => {
  const handlers = new Map<string, string>();
  for (const [id, resource] of Object.entries(resources)) {
    const handler = handlerIdOf(resource);
    if (!reproducedCustomResources.includes(resource.Type) || handler === undefined) continue;
    if (resources[handler]?.Type === 'AWS::Lambda::Function')
      handlers.set(handler, `it is the handler of ${resource.Type} (${id}), whose work the runner does itself`);
  }
  return handlers;
};

/** Refuses the first custom resource of `stacks` the runner neither reproduces nor may leave out, naming it. */
export const refuseUnreproducedCustomResources = (stacks: ValueContext[]) => {
  for (const { stackName, resources } of stacks)
    for (const [id, resource] of Object.entries(resources)) {
      const { Type: type } = resource;
      if (!isCustomResource(type) || reproducedCustomResources.includes(type) || type in withoutLocalEffect) continue;
      const token = props(resource).ServiceToken;
      throw new UnsupportedTemplateError(
        `${stackName}/${id}: a custom resource (${type}, its ServiceToken ${shown(token)}) runs code at deployment that the runner does not reproduce; locally its work would be missing (reproduced: ${reproducedCustomResources.join(', ')}; left out, as they change nothing served: ${Object.keys(withoutLocalEffect).join(', ')})`,
      );
    }
};
