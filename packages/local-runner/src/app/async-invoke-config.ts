// How Lambda handles a function's asynchronous invocations, from its stack's template: the AWS::Lambda::EventInvokeConfig
// of the function and qualifier invoked ("AWS::Lambda::EventInvokeConfig", CloudFormation Template Reference:
// MaximumRetryAttempts 0 to 2, MaximumEventAgeInSeconds 60 to 21600, DestinationConfig OnSuccess and OnFailure), and
// the function's DeadLetterConfig.TargetArn. Without a configuration, Lambda's defaults ("Configuring error handling
// for asynchronous invocation", https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html):
// two retries, events kept for six hours, no destination.
import { functionIdNamed } from './aws-function-names.ts';
import { ofType, props } from './cfn.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';

export interface AsyncInvokeConfig {
  maximumRetryAttempts: number;
  maximumEventAgeSeconds: number;
  /** The ARN an invocation record goes to once the function succeeds. */
  onSuccess?: string;
  /** The ARN an invocation record goes to once the event is discarded (retries exhausted, or too old). */
  onFailure?: string;
  /** The function's dead-letter queue or topic: the event itself goes to it once discarded. */
  deadLetter?: string;
}

const defaultAsyncConfig = { maximumRetryAttempts: 2, maximumEventAgeSeconds: 21_600 };

/** A value of the template, evaluated; undefined (said through `say`) when it has no local value. */
const evaluated = (value: unknown, context: ValueContext, what: string, say: (line: string) => void) => {
  if (value === undefined) return undefined;
  try {
    return resolveValue(value, context);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    say(`${what} is ${error.message}, which has no local value: not applied`);
    return undefined;
  }
};

/** The function name (not ARN, no qualifier) a FunctionName names: `name`, `name:qualifier`, or an ARN's. */
const nameIn = (functionName: string) => {
  const afterFunction = /(?:^|:)function:(.+)$/.exec(functionName)?.[1] ?? functionName;
  return afterFunction.split(':')[0] ?? '';
};

interface Destination {
  Destination?: unknown;
}

/**
 * The asynchronous invocation settings of the function `functionId` of `context`'s stack, invoked as `qualifier` (none:
 * `$LATEST`, the qualifier the CDK gives an unqualified function's configuration). What has no local value is said
 * through `say` and left out.
 */
export const asyncInvokeConfigOf = (
  context: ValueContext,
  functionId: string,
  qualifier: string | undefined,
  say: (line: string) => void,
): AsyncInvokeConfig => {
  const invokedAs = qualifier ?? '$LATEST';
  const found = ofType(context.resources, 'AWS::Lambda::EventInvokeConfig').find(([id, resource]) => {
    const properties = props(resource);
    const name = evaluated(properties.FunctionName, context, `${id}: FunctionName`, say);
    const configured = evaluated(properties.Qualifier, context, `${id}: Qualifier`, say) ?? '$LATEST';
    return name !== undefined && functionIdNamed(context, nameIn(name)) === functionId && configured === invokedAs;
  });
  const fn = props(context.resources[functionId] ?? { Type: '' });
  const deadLetter = evaluated(
    (fn.DeadLetterConfig as { TargetArn?: unknown } | undefined)?.TargetArn,
    context,
    `${functionId}: DeadLetterConfig.TargetArn`,
    say,
  );
  const config: AsyncInvokeConfig = { ...defaultAsyncConfig, ...(deadLetter && { deadLetter }) };
  if (!found) return config;
  const [id, resource] = found;
  const properties = props(resource);
  const destinations = (properties.DestinationConfig ?? {}) as { OnSuccess?: Destination; OnFailure?: Destination };
  const onSuccess = evaluated(destinations.OnSuccess?.Destination, context, `${id}: OnSuccess`, say);
  const onFailure = evaluated(destinations.OnFailure?.Destination, context, `${id}: OnFailure`, say);
  return {
    ...config,
    maximumRetryAttempts: Number(properties.MaximumRetryAttempts ?? defaultAsyncConfig.maximumRetryAttempts),
    maximumEventAgeSeconds: Number(properties.MaximumEventAgeInSeconds ?? defaultAsyncConfig.maximumEventAgeSeconds),
    ...(onSuccess && { onSuccess }),
    ...(onFailure && { onFailure }),
  };
};
