import { Annotations, Aws, CfnOutput, CfnRule, Duration, Fn, Stack, type StackProps, Token } from 'aws-cdk-lib';
import { LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Algorithm } from '../functions/bearer-authorizer/algorithms.ts';
import { operationScopes } from '../functions/commons/contract/operation-scopes.ts';
import { defaultMaxBodyBytes } from '../functions/create-plant/defaults.ts';
import { createPlantVariableNames as createPlantVariables } from '../functions/create-plant/variable-names.ts';
import {
  BearerAuthorizer,
  challengeScopeOf,
  routeScopesOf,
  type ScopeNames,
  type TokenTrust,
} from './constructs/bearer-authorizer.ts';
import { CustomDomain, type CustomDomainProps, WebFirewall } from './constructs/edges.ts';
import { Identity } from './constructs/identity.ts';
import { type AlarmThresholds, Monitoring } from './constructs/monitoring.ts';
import { PlantStoreApi } from './constructs/plant-store-api.ts';
import { PlantStoreFunction } from './constructs/plant-store-function.ts';
import { PlantsTable } from './constructs/plants-table.ts';

export interface PlantStoreStackProps extends StackProps {
  /** Trust this OIDC provider instead of creating a Cognito user pool. */
  externalTrust?: TokenTrust;
  /**
   * How the issuer names the scopes of openapi.yaml's operations (ScopeNames). Unset: `contract` with the Cognito pool
   * (which issues exactly those), `none` with an external issuer.
   */
  scopes?: ScopeNames;
  /** The signature algorithms the authorizer accepts (unset: its default, RS256 and ES256). */
  jwtAlgorithms?: Algorithm[];
  authorizerCacheTtl?: Duration;
  throttlingRateLimit?: number;
  throttlingBurstLimit?: number;
  maxBodyBytes?: number;
  /** Concurrent executions reserved for each function (unset: none reserved). */
  createPlantReservedConcurrency?: number;
  authorizerReservedConcurrency?: number;
  /** Each unset threshold keeps its default (`defaults.alarms`). */
  alarmThresholds?: Partial<AlarmThresholds>;
  alarmEmail?: string;
  /** The profile whose settings apply (`profiles`; context `profile`); each setting above still overrides its own. */
  profile?: ProfileName;
  /**
   * Deploy past the alarms, for a fix while one is in ALARM (it would roll the fix back): CodeDeploy ignores the
   * deployments' alarms. For one deploy; the next one without it watches them again.
   */
  ignoreDeploymentAlarms?: boolean;
  /** How a deployment shifts traffic to new code: `canary` (10 % for 5 minutes) or `allAtOnce`. */
  deployment?: 'canary' | 'allAtOnce';
  /** A WAF web ACL in front of the API (off without it). */
  waf?: { rateLimitPer5Minutes?: number };
  /**
   * The one origin whose browser pages may call the API (`https://app.example.com`), or `*` for any; unset, no CORS
   * (browsers refuse every other origin's calls). docs/api.md, "Browser clients".
   */
  corsOrigin?: string;
  /** The API under its own domain name (off without it). */
  customDomain?: Omit<CustomDomainProps, 'api'>;
  /**
   * For `sam local` only: createPlant's AWS_ENDPOINT_URL_DYNAMODB, declared in the template with this value (sam
   * overrides only the variables a template declares). Never set for a deployment.
   */
  localDynamoDbEndpoint?: string;
}

/**
 * What differs between a development and a production deployment, by profile (`-c profile=dev`; `prod` by default):
 * the stage, its throttling, alarms, how new code is deployed, and how long logs are kept.
 */
const profiles = {
  prod: {
    stageName: 'v1',
    throttlingRateLimit: 50,
    throttlingBurstLimit: 100,
    alarms: true,
    deployment: 'canary',
    logRetention: RetentionDays.ONE_MONTH,
  },
  dev: {
    stageName: 'dev',
    throttlingRateLimit: 10,
    throttlingBurstLimit: 20,
    alarms: false,
    deployment: 'allAtOnce',
    logRetention: RetentionDays.ONE_WEEK,
  },
} as const;
type ProfileName = keyof typeof profiles;

/** Decisions a deployment may change (cdk.json context or `-c name=value`); docs/configuration.md lists them. */
export const defaults = {
  authorizerCacheTtlSeconds: 300,
  maxBodyBytes: defaultMaxBodyBytes,
  wafRateLimitPer5Minutes: 1_000,
  alarms: {
    api5xxRate: 0.01,
    api4xxRate: 0.25,
    apiLatencyP99Ms: 3_000,
    integrationLatencyP99Ms: 2_500,
  } satisfies AlarmThresholds,
};

/**
 * Cognito user pools are not offered in the China regions (the `aws-cn` partition, which cdk.json targets), so the
 * default stack cannot deploy there; with `-c issuer=...` it can. Refused at synth when the region is known, else by a
 * rule that fails the deploy before any resource is made.
 */
const refuseChinaRegions = (stack: Stack) => {
  const message =
    'Cognito user pools are not offered in the China regions: deploy with -c issuer=... (docs/identity-providers.md)';
  if (!Token.isUnresolved(stack.region)) {
    if (stack.region.startsWith('cn-')) throw new Error(`${stack.region}: ${message}`);
    return;
  }
  new CfnRule(stack, 'CognitoOffered', {
    assertions: [{ assert: Fn.conditionNot(Fn.conditionEquals(Aws.PARTITION, 'aws-cn')), assertDescription: message }],
  });
};

export class PlantStoreStack extends Stack {
  constructor(scope: Construct, id: string, props: PlantStoreStackProps = {}) {
    super(scope, id, props);
    const profile = profiles[props.profile ?? 'prod'];
    // First: every function reports to it (alarms, dashboard, and its deployment that rolls back on them).
    const monitoring = new Monitoring(this, Monitoring.id, {
      alarms: profile.alarms,
      deploymentConfig:
        (props.deployment ?? profile.deployment) === 'allAtOnce'
          ? LambdaDeploymentConfig.ALL_AT_ONCE
          : LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
      thresholds: { ...defaults.alarms, ...props.alarmThresholds },
      ...(props.alarmEmail && { alarmEmail: props.alarmEmail }),
      ...(props.ignoreDeploymentAlarms && { ignoreDeploymentAlarms: true }),
    });
    if (props.ignoreDeploymentAlarms) {
      Annotations.of(this).addWarningV2(
        'plant-store:ignore-deployment-alarms',
        'Deployments ignore their alarms (ignoreDeploymentAlarms): a bad version is not rolled back. Deploy again without it once the fix is out (docs/operations.md)',
      );
    }
    const plants = new PlantsTable(this, 'Plants');

    const createPlant = new PlantStoreFunction(this, 'CreatePlant', {
      entry: 'functions/create-plant/handler.ts',
      description: 'Plant Store: POST /plants',
      logicalId: 'CreatePlantFunction',
      timeout: Duration.seconds(10),
      logRetention: profile.logRetention,
      ...(props.createPlantReservedConcurrency !== undefined && {
        reservedConcurrency: props.createPlantReservedConcurrency,
      }),
      variables: {
        [createPlantVariables.tableName]: plants.table.tableName,
        [createPlantVariables.maxBodyBytes]: String(props.maxBodyBytes ?? defaults.maxBodyBytes),
        ...(props.localDynamoDbEndpoint && { AWS_ENDPOINT_URL_DYNAMODB: props.localDynamoDbEndpoint }),
      },
    });
    plants.grantCreatePlant(createPlant.function);
    if (props.localDynamoDbEndpoint) {
      Annotations.of(createPlant.function).addWarningV2(
        'plant-store:local-dynamodb-endpoint',
        `createPlant stores plants at ${props.localDynamoDbEndpoint}: a template for sam local, not for deployment`,
      );
    }

    if (!props.externalTrust && typeof props.scopes === 'object') {
      throw new Error(
        'Context scopes renames scopes only for an external issuer: the Cognito pool issues the contract names',
      );
    }
    if (!props.externalTrust) refuseChinaRegions(this);
    const trust = props.externalTrust ?? new Identity(this, 'Identity', operationScopes).trust;
    const routes = routeScopesOf(operationScopes, props.scopes ?? (props.externalTrust ? 'none' : 'contract'));
    const bearerAuthorizer = new BearerAuthorizer(this, 'BearerAuthorizer', {
      trust,
      routes,
      ...(props.jwtAlgorithms && { algorithms: props.jwtAlgorithms }),
      cacheTtl: props.authorizerCacheTtl ?? Duration.seconds(defaults.authorizerCacheTtlSeconds),
      logRetention: profile.logRetention,
      ...(props.authorizerReservedConcurrency !== undefined && {
        reservedConcurrency: props.authorizerReservedConcurrency,
      }),
    });

    const api = new PlantStoreApi(this, 'PlantStoreApi', {
      name: 'Plant Store',
      authorizer: bearerAuthorizer.authorizer,
      stageName: profile.stageName,
      throttlingRateLimit: props.throttlingRateLimit ?? profile.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit ?? profile.throttlingBurstLimit,
      logRetention: profile.logRetention,
      challengeScope: challengeScopeOf(routes),
      corsOrigin: props.corsOrigin,
    });

    api.addOperation('POST', '/plants', createPlant.alias);
    monitoring.watchApi(api.api);
    monitoring.watchTable(plants.table);

    if (props.waf) {
      new WebFirewall(this, 'WebFirewall', {
        api: api.api,
        rateLimitPer5Minutes: props.waf.rateLimitPer5Minutes ?? defaults.wafRateLimitPer5Minutes,
        maxBodyBytes: props.maxBodyBytes ?? defaults.maxBodyBytes,
      });
    }
    if (props.customDomain) new CustomDomain(this, 'CustomDomain', { api: api.api, ...props.customDomain });

    new CfnOutput(this, 'ApiUrl', { description: "The API's base_url: POST <ApiUrl>/plants", value: api.baseUrl });
    new CfnOutput(this, 'TableName', { description: 'The plants table', value: plants.table.tableName });
  }
}
