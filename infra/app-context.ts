import { Duration } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import type { TokenTrust } from './constructs/identity.ts';
import type { PlantStoreStackProps } from './plant-store-stack.ts';

/**
 * The stack's settings from CDK context (cdk.json, or `-c name=value`): README.md lists them. Anything not set keeps
 * the stack's default; a value that makes no sense stops the synth with a message naming it.
 */
export const propsFromContext = (node: Node): PlantStoreStackProps & { stackName: string } => {
  const text = (name: string): string | undefined => {
    const value: unknown = node.tryGetContext(name);
    return value === undefined || value === '' ? undefined : String(value);
  };
  const count = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isSafeInteger(parsed) || parsed < 0)
      throw new Error(`Context ${name} must be a whole number >= 0, not ${value}`);
    return parsed;
  };

  const issuer = text('issuer');
  let externalTrust: TokenTrust | undefined;
  if (issuer !== undefined) {
    const audience = text('audience');
    if (audience === undefined)
      throw new Error('Context issuer needs audience too: the aud (or client id) of its tokens');
    const jwksUri = text('jwksUri');
    externalTrust = { issuer, audience, requiredScope: text('requiredScope') ?? '', ...(jwksUri && { jwksUri }) };
  }
  const ttl = count('authorizerCacheTtlSeconds');
  const throttlingRateLimit = count('throttlingRateLimit');
  const throttlingBurstLimit = count('throttlingBurstLimit');
  const maxBodyBytes = count('maxBodyBytes');
  const decimal = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`Context ${name} must be a number >= 0, not ${value}`);
    return parsed;
  };
  const alarmThresholds = Object.fromEntries(
    (
      [
        ['api5xxRate', decimal('alarmApi5xxRate')],
        ['api4xxRate', decimal('alarmApi4xxRate')],
        ['apiLatencyP99Ms', count('alarmApiLatencyP99Ms')],
        ['integrationLatencyP99Ms', count('alarmIntegrationLatencyP99Ms')],
      ] as const
    ).filter(([, value]) => value !== undefined),
  );
  const alarmEmail = text('alarmEmail');
  const wafRateLimit = count('wafRateLimit');
  const waf =
    text('waf') === 'true' ? { ...(wafRateLimit !== undefined && { rateLimitPer5Minutes: wafRateLimit }) } : undefined;
  const domainName = text('domainName');
  const certificateArn = text('certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error('Context domainName and certificateArn go together: the certificate is for the domain');
  }
  const hostedZoneId = text('hostedZoneId');
  const hostedZoneName = text('hostedZoneName');
  const customDomain =
    domainName && certificateArn
      ? {
          domainName,
          certificateArn,
          ...(hostedZoneId && { hostedZoneId }),
          ...(hostedZoneName && { hostedZoneName }),
        }
      : undefined;
  const env = text('env');
  if (env !== undefined && env !== 'dev' && env !== 'prod')
    throw new Error(`Context env must be dev or prod, not ${env}`);
  const deployment = text('deployment');
  if (deployment !== undefined && deployment !== 'canary' && deployment !== 'allAtOnce') {
    throw new Error(`Context deployment must be canary or allAtOnce, not ${deployment}`);
  }
  const localDynamoDbEndpoint = text('localDynamoDbEndpoint');
  const createPlantReservedConcurrency = count('createPlantReservedConcurrency');
  const authorizerReservedConcurrency = count('authorizerReservedConcurrency');
  return {
    stackName: text('stackName') ?? 'PlantStore',
    ...(externalTrust && { externalTrust }),
    ...(ttl !== undefined && { authorizerCacheTtl: Duration.seconds(ttl) }),
    ...(throttlingRateLimit !== undefined && { throttlingRateLimit }),
    ...(throttlingBurstLimit !== undefined && { throttlingBurstLimit }),
    ...(maxBodyBytes !== undefined && { maxBodyBytes }),
    ...(createPlantReservedConcurrency !== undefined && { createPlantReservedConcurrency }),
    ...(authorizerReservedConcurrency !== undefined && { authorizerReservedConcurrency }),
    ...(Object.keys(alarmThresholds).length > 0 && { alarmThresholds }),
    ...(alarmEmail && { alarmEmail }),
    ...(deployment && { deployment }),
    ...(env && { environment: env }),
    ...(waf && { waf }),
    ...(customDomain && { customDomain }),
    ...(localDynamoDbEndpoint && { localDynamoDbEndpoint }),
  };
};
