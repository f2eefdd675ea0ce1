// A Lambda authorizer's answer read as API Gateway reads it (an IAM policy, its principal and context: "Output from an
// API Gateway Lambda authorizer"), and the policy evaluated against the ARN of the method or route called. Shared by
// a REST or WebSocket API's Lambda authorizers and an HTTP API's that answer with a policy.
import { isScalar } from '../../app/cfn.ts';
import { compiledPattern } from '../compiled-pattern.ts';

export interface AuthorizerResult {
  principalId: string;
  statements: { effect: string; actions: string[]; resources: string[] }[];
  context: Record<string, string | number | boolean>;
}

/** The quota "Lambda authorizer response size": 8 KB, of the result's JSON in UTF-8 bytes. */
const maxResultBytes = 8 * 1024;

/** IAM's wildcards: `*` any run of characters, `?` any one. */
const matchesPattern = (pattern: string, value: string) =>
  compiledPattern(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  ).test(value);

/**
 * A statement's Effect, read as API Gateway reads an authorizer's policy: in any case. The IAM reference calls Effect
 * case sensitive ("IAM JSON policy elements: Effect", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_effect.html),
 * but aws-cdk's integration test of REQUEST authorizers returns `allow` and `deny` in lower case and expects 200 and
 * 403 from the deployed API (aws/aws-cdk, packages/@aws-cdk-testing/framework-integ/test/aws-apigateway/test/
 * authorizers/integ.request-authorizer.lit.ts and its handler), and serverless-offline matched it (pull request 412,
 * "IAM statement effect is actually case-insensitive"). What API Gateway does with other casings (`ALLOW`) is not
 * documented: read the same way (docs/authorizers.md).
 */
const effectOf = (value: unknown) =>
  typeof value !== 'string'
    ? undefined
    : value.toLowerCase() === 'allow'
      ? 'Allow'
      : value.toLowerCase() === 'deny'
        ? 'Deny'
        : undefined;

const asList = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value
      : undefined;

/** The authorizer's answer, or undefined when API Gateway would reject it as malformed. */
export const parseResult = (value: unknown): AuthorizerResult | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { principalId, policyDocument, context = {} } = value as Record<string, unknown>;
  if (typeof principalId !== 'string' || typeof policyDocument !== 'object' || policyDocument === null)
    return undefined;
  if (Buffer.byteLength(JSON.stringify(value)) > maxResultBytes) return undefined;
  const statement = (policyDocument as { Statement?: unknown }).Statement;
  const list: unknown[] = Array.isArray(statement) ? statement : [statement];
  const statements = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { Effect, Action, Resource } = item as Record<string, unknown>;
    const effect = effectOf(Effect);
    const actions = asList(Action);
    const resources = asList(Resource);
    if (!effect || !actions || !resources) return undefined;
    statements.push({ effect, actions, resources });
  }
  // Context values must be flat: nested objects or arrays make API Gateway answer 500.
  if (typeof context !== 'object' || context === null) return undefined;
  const flat = Object.values(context).every(isScalar);
  if (!flat) return undefined;
  return { principalId, statements, context: context as AuthorizerResult['context'] };
};

/** The policy's decision: allowed with its principal and context, or denied (ACCESS_DENIED) with its context. */
export type PolicyDecision =
  | { allowed: true; principalId: string; context: AuthorizerResult['context'] }
  | { allowed: false; responseType: 'ACCESS_DENIED'; message: string; context: AuthorizerResult['context'] };

export const decide = (result: AuthorizerResult, methodArn: string): PolicyDecision => {
  const applies = (statement: AuthorizerResult['statements'][number]) =>
    statement.actions.some((action) => matchesPattern(action, 'execute-api:Invoke')) &&
    statement.resources.some((resource) => matchesPattern(resource, methodArn));
  const matching = result.statements.filter(applies);
  // A 403's gateway response may read the authorizer's context ($context.authorizer.<key>).
  const { context } = result;
  if (matching.some((statement) => statement.effect === 'Deny')) {
    return {
      allowed: false,
      responseType: 'ACCESS_DENIED',
      message: 'User is not authorized to access this resource with an explicit deny',
      context,
    };
  }
  if (!matching.some((statement) => statement.effect === 'Allow')) {
    return {
      allowed: false,
      responseType: 'ACCESS_DENIED',
      message: 'User is not authorized to access this resource',
      context,
    };
  }
  return { allowed: true, principalId: result.principalId, context: result.context };
};
