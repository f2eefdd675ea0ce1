// One reading of the template values that name another resource or gate access, as CloudFormation reads them: a
// reference by `Ref` or by the `Fn::GetAtt` attribute CloudFormation documents as the same id ("Return values" of
// each resource in the CloudFormation template reference), a scalar with CloudFormation's coercions, and the template's
// `Conditions` and `Parameters` applied as a deployment with the parameters' defaults applies them. A value it cannot
// read refuses the app, naming the resource and the property: never "none", never a resource left out.
import { type CfnResource, getAttOf, refOf, shown, UnsupportedTemplateError } from './cfn.ts';

/** The resource and property a value is read from, which a refusal names. */
export interface Where {
  resource: string;
  property: string;
}

const refusal = ({ resource, property }: Where, value: unknown, why: string) =>
  new UnsupportedTemplateError(`${resource}: ${property} ${shown(value)}, ${why}`);

/**
 * The `Fn::GetAtt` attribute of each type whose value is the id its `Ref` gives (the CloudFormation template
 * reference, e.g. https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigateway-authorizer.html#aws-resource-apigateway-authorizer-return-values:
 * "Ref returns the authorizer's ID"; "AuthorizerId: The ID for the authorizer").
 */
const idAttributes: Record<string, string> = {
  'AWS::ApiGateway::RestApi': 'RestApiId',
  'AWS::ApiGateway::Resource': 'ResourceId',
  'AWS::ApiGateway::Authorizer': 'AuthorizerId',
  'AWS::ApiGateway::Deployment': 'DeploymentId',
  'AWS::ApiGateway::RequestValidator': 'RequestValidatorId',
  'AWS::ApiGateway::UsagePlan': 'Id',
  'AWS::ApiGateway::ApiKey': 'APIKeyId',
  'AWS::ApiGatewayV2::Api': 'ApiId',
  'AWS::ApiGatewayV2::Authorizer': 'AuthorizerId',
  'AWS::ApiGatewayV2::Integration': 'IntegrationId',
  'AWS::ApiGatewayV2::Deployment': 'DeploymentId',
  'AWS::Cognito::UserPool': 'UserPoolId',
  'AWS::Cognito::UserPoolClient': 'ClientId',
};

/**
 * The logical id of the resource of one of `types` that `value` names: its `Ref`, or the `Fn::GetAtt` of its id
 * attribute. Anything else (a literal id, which names a resource outside the template; another attribute; an import)
 * is refused.
 */
export const referencedId = (
  value: unknown,
  resources: Record<string, CfnResource>,
  where: Where,
  types: readonly string[],
): string => {
  const ref = refOf(value);
  const [id, attribute] = ref === undefined ? (getAttOf(value) ?? []) : [ref, undefined];
  const kinds = types.join(' or ');
  if (id === undefined) throw refusal(where, value, `not a Ref or Fn::GetAtt of a ${kinds} of the template`);
  const type = resources[id]?.Type;
  if (type === undefined || !types.includes(type))
    throw refusal(where, value, `which names no ${kinds} of the template`);
  if (attribute !== undefined && idAttributes[type] !== attribute)
    throw refusal(where, value, `an attribute of ${id} that is not its id (${idAttributes[type] ?? 'Ref'})`);
  return id;
};

/** Whether `value` (a property of `where.resource`) names `id`, of one of `types`; refused when unreadable. */
export const names = (
  value: unknown,
  id: string,
  resources: Record<string, CfnResource>,
  where: Where,
  types: readonly string[],
) => referencedId(value, resources, where, types) === id;

/**
 * A boolean property: `true`/`false`, or the strings "true"/"false", which CloudFormation takes for a boolean (the
 * CDK's own `cloudformation-include` and diff take them: aws/aws-cdk pull request 10378). Whether CloudFormation also
 * takes other casings ("True") is not documented: refused, as is anything else.
 */
export const booleanOf = (value: unknown, where: Where, absent: boolean): boolean => {
  if (value === undefined) return absent;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw refusal(where, value, 'not a boolean (true, false, "true" or "false")');
};

/** A string property: a string, or a number or boolean (which CloudFormation takes as its text). */
export const stringOf = <T extends string | undefined>(value: unknown, where: Where, absent: T): string | T => {
  if (value === undefined) return absent;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw refusal(where, value, 'not a string the runner can read (an intrinsic it does not resolve)');
};

/** A number property: a number, or its decimal text. */
export const numberOf = (value: unknown, where: Where, absent: number): number => {
  if (value === undefined) return absent;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number === 'number' && Number.isFinite(number)) return number;
  throw refusal(where, value, 'not a number');
};

/** A list of strings; absent: empty. */
export const stringsOf = (value: unknown, where: Where): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw refusal(where, value, 'not a list');
  return value.map((item) => stringOf(item, where, undefined) as string);
};

/**
 * Refuses an `AuthorizerId` on a method or route (`where`) whose `AuthorizationType` is NONE or AWS_IAM: the API
 * references say
 * the id applies only with the types in `applies` (REST: CUSTOM or COGNITO_USER_POOLS; HTTP: CUSTOM or JWT;
 * WebSocket: CUSTOM); what a
 * deployment does with such a template is not documented, and reading it as "no authorizer" could serve unguarded
 * what AWS guards.
 */
export const refuseAuthorizerWithoutType = (
  authorizerId: unknown,
  authorization: string,
  where: string,
  applies: string,
) => {
  if ((authorization === 'NONE' || authorization === 'AWS_IAM') && authorizerId !== undefined)
    throw new UnsupportedTemplateError(
      `${where}: AuthorizerId ${shown(authorizerId)} with AuthorizationType ${authorization} (the id applies only with ${applies}; ` +
        'what AWS does with both is not documented): set the type, or remove the id',
    );
};
