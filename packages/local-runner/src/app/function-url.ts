// A function URL of the template (AWS::Lambda::Url) as the runner serves it ("Creating and managing Lambda function
// URLs", "Invoking Lambda function URLs" in the Lambda guide): the function (or the alias, Qualifier) it invokes, its
// AuthType (NONE, or AWS_IAM: a SigV4 signature), its Cors and its InvokeMode. What the runner cannot read of it is
// refused, naming the property.
import { type CfnResource, ofType, props, refOf, shown, UnsupportedTemplateError } from './cfn.ts';
import { corsOf, type HttpCors } from './http-api.ts';
import type { UrlAction } from './url-permissions.ts';
import { stringOf } from './values.ts';

export interface FunctionUrl {
  /** AuthType: NONE (anyone), or AWS_IAM (a request signed with SigV4). */
  authType: 'NONE' | 'AWS_IAM';
  /** InvokeMode: the function's result whole (BUFFERED), or its response stream as it comes (RESPONSE_STREAM). */
  invokeMode: 'BUFFERED' | 'RESPONSE_STREAM';
  cors: HttpCors | undefined;
  functionId: string;
  /** The alias the URL invokes (Qualifier), whose function locally runs its current code. */
  qualifier?: string;
}

/** Where AWS documents the only AllowOrigins wildcard of a function URL: `*` ("Cors", Lambda API reference). */
const urlWildcards = { service: 'Lambda', origins: ['*'], page: '"Cors" of the Lambda API reference' };

/**
 * The function URL `id` of `resources`; `functionOf` finds the function its TargetFunctionArn names (the CDK writes
 * the function's Fn::GetAtt Arn, and the alias's name as Qualifier).
 */
export const readFunctionUrl = (
  resources: Record<string, CfnResource>,
  id: string,
  functionOf: (arn: unknown, where: string) => { functionId: string; qualifier?: string },
): FunctionUrl => {
  const properties = props(resources[id] ?? { Type: '' });
  const at = (property: string) => ({ resource: id, property });
  const authType = stringOf(properties.AuthType, at('AuthType'), undefined);
  if (authType !== 'NONE' && authType !== 'AWS_IAM')
    throw new UnsupportedTemplateError(`${id}: AuthType ${shown(authType)} (NONE or AWS_IAM)`);
  const invokeMode = stringOf(properties.InvokeMode, at('InvokeMode'), 'BUFFERED');
  if (invokeMode !== 'BUFFERED' && invokeMode !== 'RESPONSE_STREAM')
    throw new UnsupportedTemplateError(`${id}: InvokeMode ${invokeMode} (BUFFERED or RESPONSE_STREAM)`);
  const target = functionOf(properties.TargetFunctionArn, `${id} (TargetFunctionArn)`);
  const qualifier = stringOf(properties.Qualifier, at('Qualifier'), undefined);
  if (qualifier !== undefined && qualifier !== '$LATEST') {
    // An alias of the function, by its name: the only Qualifier the runner can serve (a version's code is gone).
    const alias = ofType(resources, 'AWS::Lambda::Alias').find(
      ([, resource]) => props(resource).Name === qualifier && refOf(props(resource).FunctionName) === target.functionId,
    );
    if (!alias)
      throw new UnsupportedTemplateError(
        `${id}: Qualifier ${qualifier}, which names no AWS::Lambda::Alias of ${target.functionId} in the template (the runner serves an alias's URL, not a version's)`,
      );
  }
  return {
    authType,
    invokeMode,
    cors: corsOf(properties.Cors, id, 'Cors', urlWildcards),
    functionId: target.functionId,
    ...(target.qualifier !== undefined && { qualifier: target.qualifier }),
    ...(qualifier !== undefined && qualifier !== '$LATEST' && { qualifier }),
  };
};

/**
 * What of the function URL `id` (of `stackName`) applies on AWS and not locally, said at start, and what makes it
 * answer 403 (`ungranted`: the actions no permission grants to anyone, AuthType NONE). Applied: the 6 MB request and
 * buffered response payloads, the function's timeout ("Lambda quotas").
 */
export const urlNotices = (stackName: string, id: string, url: FunctionUrl, ungranted: UrlAction[]): string[] => [
  ...(ungranted.length > 0
    ? [
        `${stackName}/${id}: the function URL of ${url.functionId}${url.qualifier === undefined ? '' : ` (alias ${url.qualifier})`} has AuthType NONE and no AWS::Lambda::Permission grants ${ungranted.join(' nor ')} to Principal *: it answers every request 403, as AWS does ("Control access to Lambda function URLs": the resource-based policy must grant public access, both actions for a URL created since October 2025)`,
      ]
    : []),
  ...(url.authType === 'AWS_IAM'
    ? [
        `${stackName}/${id}: a function URL with AuthType AWS_IAM: the runner checks a request's SigV4 signature against its own credentials (access key id local, secret local), not the caller's IAM permissions`,
      ]
    : []),
  ...(url.invokeMode === 'RESPONSE_STREAM'
    ? [
        `${stackName}/${id}: a streamed function URL: the 200 MB limit of a streamed response and its bandwidth past the first 6 MB are not applied`,
      ]
    : []),
];
