// Whether a function URL with AuthType NONE is public: "Control access to Lambda function URLs"
// (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html): with NONE, "your function's resource-based policy is
// always in effect and must grant public access before your function URL can receive requests", and "starting in
// October 2025, new function URLs will require both lambda:InvokeFunctionUrl and lambda:InvokeFunction permissions".
// The policy is the template's AWS::Lambda::Permission resources, each read as CloudFormation gives it (values.ts and
// intrinsics.ts resolve its values); one whose values the runner cannot read refuses the app, naming it: the runner
// fails closed.
import { functionNameOf } from './aws-function-names.ts';
import { type CfnResource, ofType, props, shown, UnsupportedTemplateError } from './cfn.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { booleanOf, stringOf } from './values.ts';

/** What a function URL invokes: the function, by the names it answers to (`names`), and the alias it names. */
interface UrlTarget {
  names: Set<string>;
  qualifier: string | undefined;
}

/** The two actions a URL's anonymous caller needs (their names compared as IAM compares them: in any case). */
export type UrlAction = 'lambda:InvokeFunctionUrl' | 'lambda:InvokeFunction';
const urlActions: UrlAction[] = ['lambda:InvokeFunctionUrl', 'lambda:InvokeFunction'];

/** The conditions that restrict a statement to callers an anonymous request is not (a source, an organization). */
const callerConditions = ['SourceArn', 'SourceAccount', 'PrincipalOrgID', 'EventSourceToken'];

/**
 * The function a FunctionName names, in the forms AddPermission takes ("AddPermission", Lambda API reference: a name,
 * `my-function:v1`, an ARN, a partial ARN `123456789012:function:my-function`, each with a version or alias or not);
 * undefined when it is none of them. An ARN's region and account are not compared: locally there is one of each.
 */
export const functionReferenceOf = (text: string): { name: string; qualifier?: string } | undefined => {
  const [, name, qualifier] =
    /^(?:arn:[a-z-]+:lambda:[a-z0-9-]+:\d{12}:function:|\d{12}:function:)?([\w-]{1,140})(?::([\w$-]{1,128}))?$/.exec(
      text,
    ) ?? [];
  return name === undefined ? undefined : { name, ...(qualifier !== undefined && { qualifier }) };
};

/** A property of the permission `id`, resolved; refused when the runner cannot read it. */
const readText = (value: unknown, id: string, property: string, context: ValueContext, urlId: string) => {
  try {
    return resolveValue(value, context);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new UnsupportedTemplateError(
      `${id}: ${property} ${shown(value)}, which the runner cannot read: it decides whether the function URL ${urlId} (AuthType NONE) is public`,
    );
  }
};

/**
 * The names the URL's function answers to: its logical id, and its name as Lambda knows it (its FunctionName, else
 * the generated one: what its Ref gives) when the runner can read it (found in whichever of `contexts` declares it).
 */
const namesOf = (contexts: ValueContext[], functionId: string) => {
  const names = new Set([functionId]);
  for (const context of contexts) {
    if (context.resources[functionId]?.Type !== 'AWS::Lambda::Function') continue;
    try {
      names.add(functionNameOf(context, functionId));
    } catch (error) {
      if (!(error instanceof UnresolvableValueError)) throw error;
    }
  }
  return names;
};

/** Which of the URL's actions the permission `id` grants its anonymous caller (none when it grants neither). */
const grantedBy = (
  [id, permission]: [string, CfnResource],
  context: ValueContext,
  urlId: string,
  target: UrlTarget,
): UrlAction[] => {
  const properties = props(permission);
  const read = (property: string) => readText(properties[property], id, property, context, urlId);
  const action = read('Action').toLowerCase();
  const actions = urlActions.filter((name) => action === name.toLowerCase() || action === 'lambda:*' || action === '*');
  if (actions.length === 0 || read('Principal') !== '*') return [];
  const named = functionReferenceOf(read('FunctionName'));
  if (!named)
    throw new UnsupportedTemplateError(
      `${id}: FunctionName ${shown(properties.FunctionName)} names no function in a form AddPermission takes`,
    );
  if (!target.names.has(named.name) || named.qualifier !== target.qualifier) return [];
  const at = (property: string) => ({ resource: id, property });
  // A condition on the URL's auth type or on how the function is invoked: "applies only when your function URL's
  // AuthType matches" (AWS::Lambda::Permission, FunctionUrlAuthType); InvokedViaFunctionUrl false grants no URL call.
  const authType = stringOf(properties.FunctionUrlAuthType, at('FunctionUrlAuthType'), 'NONE');
  const viaUrl = booleanOf(properties.InvokedViaFunctionUrl, at('InvokedViaFunctionUrl'), true);
  if (authType !== 'NONE' || !viaUrl || callerConditions.some((name) => properties[name] !== undefined)) return [];
  return actions;
};

/**
 * The actions the resource-based policy of the function URL `urlId` does not grant to anyone (empty: it is public),
 * read from the permissions of `contexts` (the URL's stack, and its function's when another's).
 */
export const missingPublicGrants = (
  contexts: ValueContext[],
  urlId: string,
  { functionId, qualifier }: { functionId: string; qualifier?: string },
): UrlAction[] => {
  const target = { names: namesOf(contexts, functionId), qualifier };
  const granted = new Set(
    contexts.flatMap((context) =>
      ofType(context.resources, 'AWS::Lambda::Permission').flatMap((permission) =>
        grantedBy(permission, context, urlId, target),
      ),
    ),
  );
  return urlActions.filter((action) => !granted.has(action));
};
