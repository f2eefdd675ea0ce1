// Each function's environment variables locally, assembled here alone: the template's values (with the intrinsics that
// have a local meaning resolved), then the runner's (the development issuer's, the local endpoints), then
// `--env-vars`, then what the Lambda runtime itself sets, and each execution environment's own (its Runtime API, its
// log stream). The paths a runtime's bootstrap sets for the function's layers (PATH, NODE_PATH, PYTHONPATH) are added
// where that bootstrap is reproduced, bootstrap.ts.

import { randomUUID } from 'node:crypto';
import { functionNameOf } from '../app/aws-function-names.ts';
import type { FunctionDefinition } from '../app/functions.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from '../app/intrinsics.ts';
import { localAws } from '../app/local-aws.ts';
import { type EnvVars, type IssuerIdentity, trustsDevIssuer } from '../issuer/dev-issuer.ts';

/**
 * The environment variables a function runs with locally. `overrides` (the runner's local values, then `--env-vars`) win over
 * the template (and spare it resolving values that only exist on AWS); what the Lambda runtime sets itself wins over
 * both, as on Lambda.
 */
export const functionVariables = (
  fn: FunctionDefinition,
  app: ValueContext,
  overrides: Record<string, string>,
): Record<string, string> => {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.variables)) {
    if (name in overrides) continue;
    try {
      variables[name] = resolveValue(value, app);
    } catch (error) {
      if (!(error instanceof UnresolvableValueError)) throw error;
      throw new UnresolvableValueError(
        `${fn.id}: environment variable ${name} is ${error.message}, which has no local value; give one with --env-vars`,
      );
    }
  }
  // Its name as Lambda knows it (aws-function-names.ts): the runtime's `context.functionName`, and its log group's.
  const name = functionNameOf(app, fn.id);
  return {
    // Unreserved: a function's configuration may change them.
    LANG: 'en_US.UTF-8',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin/:/bin',
    ...variables,
    ...overrides,
    // Reserved: what the Lambda runtime sets itself ("Defined runtime environment variables" in the Lambda guide).
    _HANDLER: fn.handler,
    AWS_REGION: localAws.region,
    AWS_DEFAULT_REGION: localAws.region,
    // Local credentials (local-aws.ts): no real AWS account is ever reached.
    AWS_ACCESS_KEY_ID: localAws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localAws.credentials.secretAccessKey,
    AWS_SESSION_TOKEN: localAws.credentials.sessionToken,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: fn.version,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
    // Only with the JSON log format: the runtime's own format and level (the function's LoggingConfig).
    ...(fn.logFormat === 'JSON' && { AWS_LAMBDA_LOG_FORMAT: 'JSON' }),
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.assetDir,
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    TZ: 'UTC',
  };
};

/**
 * The variables of one execution environment: the function's (`variables`, with its runtime's paths), the address of
 * its Runtime API (AWS_LAMBDA_RUNTIME_API), and a log stream of its own, `<date>/[<version>]<32 hex>` as on Lambda.
 */
export const environmentVariables = (
  variables: Record<string, string>,
  runtimeApi: string,
): Record<string, string> => ({
  ...variables,
  AWS_LAMBDA_RUNTIME_API: runtimeApi,
  AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[${variables.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST'}]${randomUUID().replaceAll('-', '')}`,
});

/** The development issuer's values for a function that trusts it, in the variables its Metadata names. */
const devIssuerVariables = (
  fn: FunctionDefinition,
  { issuer, audience }: IssuerIdentity,
  jwksUri: string,
  envVars: EnvVars = {},
): Record<string, string> => {
  const names = fn.tokenIssuerVariables;
  if (names === undefined || !trustsDevIssuer(fn, envVars)) return {};
  return { [names.issuer]: issuer, [names.audience]: audience, [names.jwksUri]: jwksUri };
};

/**
 * The template's variables of `fn`, less the JWKS address of an issuer that `--env-vars` replaces: those keys are the
 * replaced issuer's, and a stack given only the new issuer finds its keys by discovery (as the runner then does).
 */
const templateVariables = (fn: FunctionDefinition, envVars: EnvVars = {}): Record<string, unknown> => {
  const names = fn.tokenIssuerVariables;
  const given = envVars[fn.id] ?? {};
  if (names === undefined || !(names.issuer in given) || names.jwksUri in given) return fn.variables;
  const { [names.jwksUri]: _replaced, ...variables } = fn.variables;
  return variables;
};

/** Where the runner's services are, for the SDKs: the local database and services, and the unserved services' endpoint. */
export interface LocalEndpoints {
  database: string;
  unservedServices?: string;
  services?: Record<string, string>;
}

/**
 * The endpoint variables the SDKs read ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
 * https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html): each served service's own, and
 * AWS_ENDPOINT_URL, the catch-all, at the endpoint that names the services the runner does not serve.
 */
export const endpointVariables = (endpoints: LocalEndpoints): Record<string, string> => ({
  ...(endpoints.unservedServices && { AWS_ENDPOINT_URL: endpoints.unservedServices }),
  AWS_ENDPOINT_URL_DYNAMODB: endpoints.database,
  // DynamoDB Streams is served on the database's port (database/streams/requests.ts).
  AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoints.database,
  ...endpoints.services,
});

/**
 * A function's environment variables as the runner gives them: the template's, with the development issuer (unless
 * `envVars` names the issuer), the local database, the local services' endpoints (services/: AWS_ENDPOINT_URL_SSM,
 * AWS_ENDPOINT_URL_SECRETS_MANAGER) and the endpoint of the services the runner does not serve
 * (aws/unserved-services.ts) in, and its `envVars` (from `--env-vars`, by function id) over them.
 */
export const localVariables = (
  fn: FunctionDefinition,
  app: ValueContext,
  issuer: { identity: IssuerIdentity; jwksUri: string },
  endpoints: LocalEndpoints,
  envVars: EnvVars = {},
) =>
  functionVariables({ ...fn, variables: templateVariables(fn, envVars) }, app, {
    ...devIssuerVariables(fn, issuer.identity, issuer.jwksUri, envVars),
    ...endpointVariables(endpoints),
    ...envVars[fn.id],
  });
