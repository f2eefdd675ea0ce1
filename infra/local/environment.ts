// Each function's environment locally: the template's values (with the intrinsics that have a local meaning
// resolved), then the local overrides, then what the Lambda runtime itself sets.
import type { LocalApp, LocalFunction } from './template.ts';

export class UnresolvableValueError extends Error {
  override name = 'UnresolvableValueError';
}

/** Pseudo parameters as the local runner answers them. */
export const localAws = {
  region: 'us-east-1',
  accountId: '000000000000',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
};

/** Resolves Ref, Fn::GetAtt (a table's Arn) and Fn::Join; anything else is unresolvable locally. */
export const resolveValue = (value: unknown, app: LocalApp): string => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object' && value !== null) {
    if ('Ref' in value && typeof value.Ref === 'string') return resolveRef(value.Ref, app);
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
    }
  }
  throw new UnresolvableValueError(JSON.stringify(value));
};

const resolveRef = (id: string, app: LocalApp): string => {
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
  throw new UnresolvableValueError(`{"Ref":"${id}"}`);
};

/**
 * The environment a function runs with locally. `overrides` (the runner's local values, then `--env-vars`) win over
 * the template (and spare it resolving values that only exist on AWS); what the Lambda runtime sets itself wins over
 * both, as on Lambda.
 */
export const functionEnvironment = (
  fn: LocalFunction,
  app: LocalApp,
  overrides: Record<string, string>,
): Record<string, string> => {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (name in overrides) continue;
    try {
      environment[name] = resolveValue(value, app);
    } catch (error) {
      if (!(error instanceof UnresolvableValueError)) throw error;
      throw new UnresolvableValueError(
        `${fn.id}: environment variable ${name} is ${error.message}, which has no local value; give one with --env-vars`,
      );
    }
  }
  return {
    ...environment,
    ...overrides,
    AWS_REGION: localAws.region,
    AWS_DEFAULT_REGION: localAws.region,
    // Local credentials: the local DynamoDB takes any, and no real AWS account is ever reached.
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_LAMBDA_FUNCTION_NAME: fn.id,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: fn.assetDir,
    TZ: 'UTC',
  };
};
