// A REST API's resource policy (AWS::ApiGateway::RestApi's `Policy`), which the runner does not evaluate: API Gateway
// judges every call against it, by caller, IP, path, VPC endpoint... ("How API Gateway resource policies affect
// authorization workflow", https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-authorization-flow.html;
// "Controlling access to a REST API with API Gateway resource policies",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-resource-policies.html). So the runner
// serves an API only when its policy cannot restrict a caller (each statement allows anyone to invoke anything, with
// no condition), and refuses any other: served, it would let through what AWS refuses.
import { type CfnResource, props, shown, UnsupportedTemplateError } from './cfn.ts';

const anyOf = (value: unknown, accepted: readonly string[]) =>
  (typeof value === 'string' ? [value] : Array.isArray(value) ? value : [undefined]).every(
    (item) => typeof item === 'string' && accepted.includes(item),
  );

const isAnyone = (principal: unknown) =>
  principal === '*' ||
  (typeof principal === 'object' &&
    principal !== null &&
    Object.keys(principal).length === 1 &&
    'AWS' in principal &&
    anyOf(principal.AWS, ['*']));

/** Whether `statement` allows anyone every call, unconditionally (any other key, e.g. Condition, is a restriction). */
const allowsAll = (statement: unknown) => {
  if (typeof statement !== 'object' || statement === null || Array.isArray(statement)) return false;
  const { Effect, Principal, Action, Resource, Sid, ...others } = statement as Record<string, unknown>;
  return (
    Object.keys(others).length === 0 &&
    (Sid === undefined || typeof Sid === 'string') &&
    Effect === 'Allow' &&
    isAnyone(Principal) &&
    anyOf(Action, ['execute-api:Invoke', 'execute-api:*', '*']) &&
    anyOf(Resource, ['*', 'execute-api:/*'])
  );
};

/** Refuses the REST API `apiId` when its `Policy` (an object or its JSON text) could restrict a caller. */
export const checkResourcePolicy = (api: CfnResource, apiId: string) => {
  const written = props(api).Policy;
  if (written === undefined) return;
  let policy: unknown = written;
  if (typeof written === 'string') {
    try {
      policy = JSON.parse(written);
    } catch {
      policy = undefined;
    }
  }
  const statements =
    typeof policy === 'object' && policy !== null && 'Statement' in policy ? [policy.Statement].flat() : [undefined];
  if (statements.length === 0 || !statements.every(allowsAll))
    throw new UnsupportedTemplateError(
      `${apiId}: Policy ${shown(written)} is a resource policy, which the runner does not evaluate ` +
        '(it serves a REST API only when its policy allows anyone every call, with no Condition)',
    );
};
