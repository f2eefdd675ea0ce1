// The template's intrinsic functions and pseudo parameters, resolved where they have a local meaning.
import { RunnerError } from '../errors.ts';
import { type CfnResource, isScalar } from './cfn.ts';
import { localAws } from './local-aws.ts';
import { localPoolId, poolArn, poolIssuer } from './user-pools.ts';

export class UnresolvableValueError extends RunnerError {
  override name = 'UnresolvableValueError';
}

/** What a value of a stack's template is resolved in: that stack, and what the assembly's stacks export. */
export interface ValueContext {
  stackName: string;
  /** Its tables: a Ref's name, an Arn's. */
  tables: { id: string; tableName: string }[];
  resources: Record<string, CfnResource>;
  /** Each export of the assembly's stacks (Outputs' Export.Name), by name, with the stack its value is resolved in. */
  exports: Map<string, ExportedValue>;
}

export interface ExportedValue {
  value: unknown;
  stack: ValueContext;
}

/** The local ARN of the function `name` names (a name, or already an ARN): in the local region and account. */
const functionArn = (name: string) =>
  name.startsWith('arn:')
    ? name
    : `arn:${localAws.partition}:lambda:${localAws.region}:${localAws.accountId}:function:${name}`;

/**
 * Fn::Sub ("Fn::Sub", CloudFormation template reference): its string, each `${Name}` replaced by the variable of that
 * name (the list form's map) or by `{"Ref": Name}`, each `${Id.Attribute}` by `{"Fn::GetAtt": [Id, Attribute]}`,
 * each `${!Literal}` by `${Literal}`, as resolveValue resolves them.
 */
const resolveSub = (argument: unknown, app: ValueContext): string => {
  const [text, variables = {}] = Array.isArray(argument) ? argument : [argument];
  if (typeof text !== 'string' || typeof variables !== 'object' || variables === null)
    throw new UnresolvableValueError(JSON.stringify({ 'Fn::Sub': argument }));
  return text.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
    if (name.startsWith('!')) return `\${${name.slice(1)}}`;
    if (Object.hasOwn(variables, name)) return resolveValue((variables as Record<string, unknown>)[name], app);
    const dot = name.indexOf('.');
    return resolveValue(dot < 0 ? { Ref: name } : { 'Fn::GetAtt': [name.slice(0, dot), name.slice(dot + 1)] }, app);
  });
};

/**
 * Resolves Ref (a table's name, a function's, an alias's or a version's ARN), Fn::GetAtt (a table's Arn, a function's),
 * Fn::Join, Fn::Sub and Fn::ImportValue (another stack's export, as the CDK writes a cross-stack reference); anything
 * else is unresolvable locally.
 */
export const resolveValue = (value: unknown, app: ValueContext): string => {
  if (isScalar(value)) return String(value);
  if (typeof value === 'object' && value !== null) {
    if ('Ref' in value && typeof value.Ref === 'string') return resolveRef(value.Ref, app);
    if ('Fn::Sub' in value) return resolveSub(value['Fn::Sub'], app);
    if ('Fn::ImportValue' in value) {
      const name = resolveValue(value['Fn::ImportValue'], app);
      const exported = app.exports.get(name);
      if (!exported)
        throw new UnresolvableValueError(`${JSON.stringify(value)} (no stack of the assembly exports ${name})`);
      return resolveValue(exported.value, exported.stack);
    }
    if ('Fn::Join' in value && Array.isArray(value['Fn::Join'])) {
      const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => resolveValue(part, app)).join(separator);
    }
    if ('Fn::GetAtt' in value && Array.isArray(value['Fn::GetAtt'])) {
      const [id, attribute] = value['Fn::GetAtt'] as [string, string];
      if (app.resources[id]?.Type === 'AWS::Lambda::Function' && attribute === 'Arn')
        return functionArn(resolveRef(id, app));
      const table = app.tables.find((candidate) => candidate.id === id);
      if (table && attribute === 'Arn') {
        return `arn:aws:dynamodb:${localAws.region}:${localAws.accountId}:table/${table.tableName}`;
      }
      // A user pool's attributes, for the pool the development issuer stands in for (user-pools.ts).
      if (app.resources[id]?.Type === 'AWS::Cognito::UserPool') {
        const poolId = localPoolId(id);
        const attributes: Record<string, string> = {
          Arn: poolArn(poolId),
          ProviderURL: poolIssuer(poolId),
          ProviderName: poolIssuer(poolId).slice('https://'.length),
          UserPoolId: poolId,
        };
        if (Object.hasOwn(attributes, attribute)) return attributes[attribute] as string;
      }
    }
  }
  throw new UnresolvableValueError(JSON.stringify(value));
};

const resolveRef = (id: string, app: ValueContext): string => {
  const pseudo: Record<string, string> = {
    'AWS::Region': localAws.region,
    'AWS::AccountId': localAws.accountId,
    'AWS::Partition': localAws.partition,
    'AWS::URLSuffix': localAws.urlSuffix,
    'AWS::StackName': app.stackName,
  };
  // Own keys alone: a Ref to `toString` names no pseudo parameter.
  if (Object.hasOwn(pseudo, id)) return pseudo[id] as string;
  const table = app.tables.find((candidate) => candidate.id === id);
  if (table) return table.tableName;
  // A function's Ref is its name, which locally is its logical id (its AWS_LAMBDA_FUNCTION_NAME); a user pool's, its
  // local id; an app client's, locally its logical id.
  const type = app.resources[id]?.Type;
  if (type === 'AWS::Lambda::Function' || type === 'AWS::Cognito::UserPoolClient') return id;
  if (type === 'AWS::Cognito::UserPool') return localPoolId(id);
  // An HTTP or WebSocket API's, its id, which locally is its logical id (its events' apiId).
  if (type === 'AWS::ApiGatewayV2::Api') return id;
  // An alias's, its ARN (the function's with the alias's name); a version's, the function's with its version number,
  // which locally is 1 (functions.ts: a published version runs as the function's first).
  const properties = app.resources[id]?.Properties ?? {};
  if (type === 'AWS::Lambda::Alias' || type === 'AWS::Lambda::Version') {
    const qualifier = type === 'AWS::Lambda::Alias' ? resolveValue(properties.Name, app) : '1';
    return `${functionArn(resolveValue(properties.FunctionName, app))}:${qualifier}`;
  }
  throw new UnresolvableValueError(`{"Ref":"${id}"}`);
};
