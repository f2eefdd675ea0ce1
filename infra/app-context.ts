import { Duration } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { parseAlgorithms } from '../functions/bearer-authorizer/algorithms.ts';
import { issuerTransport } from '../functions/bearer-authorizer/issuer-address.ts';
import type { AlarmThresholds } from './constructs/monitoring.ts';
import { corsOriginProblem } from './constructs/plant-store-api.ts';
import type { PlantStoreStackProps } from './plant-store-stack.ts';

type Props = PlantStoreStackProps & { stackName: string };
/** Reads a setting's text (`name` for the error message); throws naming the setting when it makes no sense. */
type Reader<T> = (name: string, value: string) => T;

const text: Reader<string> = (_name, value) => value;
// Decimal digits only: Number() alone also reads `0x10`, `1e3`, `0b11` and ` 7 `, which nobody means as a setting.
const wholeNumber: Reader<number> = (name, value) => {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed))
    throw new Error(`Context ${name} must be a whole number >= 0, not ${value}`);
  return parsed;
};
const decimal: Reader<number> = (name, value) => {
  if (!/^(\d+\.?\d*|\.\d+)$/.test(value)) throw new Error(`Context ${name} must be a number >= 0, not ${value}`);
  return Number(value);
};
const oneOf =
  <T extends string>(...allowed: T[]): Reader<T> =>
  (name, value) => {
    if (!(allowed as string[]).includes(value))
      throw new Error(`Context ${name} must be ${allowed.join(' or ')}, not ${value}`);
    return value as T;
  };

/** What the authorizer fetches (the issuer's discovery document, or its keys) must be reachable as it allows. */
const fetchable = (name: string, value: string) => {
  if (issuerTransport(value) === undefined) {
    throw new Error(`Context ${name} must be an https URL (plain http only on loopback), not ${value}`);
  }
};

/** A setting that sets one prop. */
const prop =
  <K extends keyof Props>(key: K, read: Reader<Props[K]>) =>
  (props: Partial<Props>, name: string, value: string) => {
    props[key] = read(name, value);
  };
/** A setting that sets one alarm threshold. */
const threshold =
  (key: keyof AlarmThresholds, read: Reader<number>) => (props: Partial<Props>, name: string, value: string) => {
    props.alarmThresholds = { ...props.alarmThresholds, [key]: read(name, value) };
  };

/** The settings that stand alone, by context name (docs/configuration.md lists them all). */
const settings = {
  stackName: prop('stackName', text),
  profile: prop('profile', oneOf('dev', 'prod')),
  deployment: prop('deployment', oneOf('canary', 'allAtOnce')),
  ignoreDeploymentAlarms: prop(
    'ignoreDeploymentAlarms',
    (name, value) => oneOf('true', 'false')(name, value) === 'true',
  ),
  jwtAlgorithms: prop('jwtAlgorithms', (name, value) => parseAlgorithms(value, `Context ${name}`)),
  authorizerCacheTtlSeconds: prop('authorizerCacheTtl', (name, value) => Duration.seconds(wholeNumber(name, value))),
  throttlingRateLimit: prop('throttlingRateLimit', wholeNumber),
  throttlingBurstLimit: prop('throttlingBurstLimit', wholeNumber),
  maxBodyBytes: prop('maxBodyBytes', wholeNumber),
  createPlantReservedConcurrency: prop('createPlantReservedConcurrency', wholeNumber),
  authorizerReservedConcurrency: prop('authorizerReservedConcurrency', wholeNumber),
  alarmEmail: prop('alarmEmail', text),
  alarmApi5xxRate: threshold('api5xxRate', decimal),
  alarmApi4xxRate: threshold('api4xxRate', decimal),
  alarmApiLatencyP99Ms: threshold('apiLatencyP99Ms', wholeNumber),
  alarmIntegrationLatencyP99Ms: threshold('integrationLatencyP99Ms', wholeNumber),
  localDynamoDbEndpoint: prop('localDynamoDbEndpoint', text),
  corsOrigin: prop('corsOrigin', (name, value) => {
    const problem = corsOriginProblem(value);
    if (problem !== undefined) throw new Error(`Context ${name} ${value}: ${problem}`);
    return value;
  }),
  scopes: prop('scopes', (name, value) => {
    if (value === 'contract' || value === 'none') return value;
    let names: unknown;
    try {
      names = JSON.parse(value);
    } catch {
      names = undefined;
    }
    const valid =
      typeof names === 'object' &&
      names !== null &&
      !Array.isArray(names) &&
      Object.values(names).every((v) => typeof v === 'string');
    if (!valid) {
      throw new Error(
        `Context ${name} must be contract, none, or a JSON object naming each scope of openapi.yaml as the issuer does ` +
          `(e.g. {"plants/write":"Plants.Write"}), not ${value}`,
      );
    }
    return names as Record<string, string>;
  }),
  env: (_props: Partial<Props>, _name: string, value: string) => {
    throw new Error(`Context env is now profile: -c profile=${value}`);
  },
  requiredScope: (_props: Partial<Props>, _name: string, value: string) => {
    throw new Error(
      `Context requiredScope is now scopes, a scope per operation (openapi.yaml): -c scopes=contract when the issuer ` +
        `issues those names, or -c scopes='{"plants/write":"${value}"}'`,
    );
  },
};

/** The settings that only make sense together: each reads its group's values (undefined when unset). */
const groups: ((get: (name: string) => string | undefined) => Partial<Props>)[] = [
  (get) => {
    const issuer = get('issuer');
    if (issuer === undefined) return {};
    const audience = get('audience');
    if (audience === undefined)
      throw new Error('Context issuer needs audience too: the aud (or client id) of its tokens');
    const jwksUri = get('jwksUri');
    // Without jwksUri, the issuer's discovery document names the keys: whichever is fetched must be https.
    fetchable(jwksUri === undefined ? 'issuer' : 'jwksUri', jwksUri ?? issuer);
    return {
      externalTrust: { issuer, audience, ...(jwksUri && { jwksUri }) },
    };
  },
  (get) => {
    if (get('waf') !== 'true') return {};
    const rateLimit = get('wafRateLimit');
    return { waf: rateLimit === undefined ? {} : { rateLimitPer5Minutes: wholeNumber('wafRateLimit', rateLimit) } };
  },
  (get) => {
    const [domainName, certificateArn] = [get('domainName'), get('certificateArn')];
    if ((domainName === undefined) !== (certificateArn === undefined))
      throw new Error('Context domainName and certificateArn go together: the certificate is for the domain');
    if (domainName === undefined || certificateArn === undefined) return {};
    const [hostedZoneId, hostedZoneName] = [get('hostedZoneId'), get('hostedZoneName')];
    if ((hostedZoneId === undefined) !== (hostedZoneName === undefined)) {
      throw new Error(
        'Context hostedZoneId and hostedZoneName go together: the alias record needs the zone and its name',
      );
    }
    return {
      customDomain: {
        domainName,
        certificateArn,
        ...(hostedZoneId && { hostedZoneId }),
        ...(hostedZoneName && { hostedZoneName }),
      },
    };
  },
];

/**
 * Each profile's stack, by default: one name per environment, so that deploying one never updates another in place
 * (the same name is the same stack to CloudFormation, whatever the profile).
 */
const defaultStackNames = { prod: 'PlantStore', dev: 'PlantStoreDev' } as const;

/**
 * The stack's settings from CDK context (cdk.json, or `-c name=value`): docs/configuration.md lists them. Anything not set keeps
 * the stack's default; a value that makes no sense stops the synth with a message naming it.
 */
export const propsFromContext = (node: Node): Props => {
  const get = (name: string): string | undefined => {
    const value: unknown = node.tryGetContext(name);
    return value === undefined || value === '' ? undefined : String(value);
  };
  const props: Partial<Props> = {};
  for (const [name, set] of Object.entries(settings)) {
    const value = get(name);
    if (value !== undefined) set(props, name, value);
  }
  const profile = props.profile ?? 'prod';
  const stackName = props.stackName ?? defaultStackNames[profile];
  // Another profile's default name would update that environment's stack in place (its stage, alarms and data).
  const other = Object.entries(defaultStackNames).find(([name, value]) => name !== profile && value === stackName);
  if (other) {
    throw new Error(
      `Context stackName ${stackName} is the ${other[0]} profile's stack: with profile ${profile}, deploy ` +
        `${defaultStackNames[profile]} (the default) or another name`,
    );
  }
  return { ...props, stackName, ...Object.assign({}, ...groups.map((group) => group(get))) };
};
