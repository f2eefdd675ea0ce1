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

/**
 * Resolves Ref (a table's name, a function's), Fn::GetAtt (a table's Arn), Fn::Join and Fn::ImportValue (another
 * stack's export, as the CDK writes a cross-stack reference); anything else is unresolvable locally.
 */
export const resolveValue = (value: unknown, app: ValueContext): string => {
  if (isScalar(value)) return String(value);
  if (typeof value === 'object' && value !== null) {
    if ('Ref' in value && typeof value.Ref === 'string') return resolveRef(value.Ref, app);
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
        if (attributes[attribute] !== undefined) return attributes[attribute];
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
  if (pseudo[id]) return pseudo[id];
  const table = app.tables.find((candidate) => candidate.id === id);
  if (table) return table.tableName;
  // A function's Ref is its name, which locally is its logical id (its AWS_LAMBDA_FUNCTION_NAME); a user pool's, its
  // local id; an app client's, locally its logical id.
  const type = app.resources[id]?.Type;
  if (type === 'AWS::Lambda::Function' || type === 'AWS::Cognito::UserPoolClient') return id;
  if (type === 'AWS::Cognito::UserPool') return localPoolId(id);
  // An HTTP or WebSocket API's, its id, which locally is its logical id (its events' apiId).
  if (type === 'AWS::ApiGatewayV2::Api') return id;
  throw new UnresolvableValueError(`{"Ref":"${id}"}`);
};
