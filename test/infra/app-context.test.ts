import { describe, expect, test } from '@jest/globals';
import { App, Duration } from 'aws-cdk-lib';
import { propsFromContext } from '../../infra/app-context.ts';

const props = (context: Record<string, unknown>) => propsFromContext(new App({ context }).node);

describe('propsFromContext', () => {
  test('without context: the stack PlantStore with its defaults and its own Cognito pool', () => {
    expect(props({})).toEqual({ stackName: 'PlantStore' });
  });

  test('an issuer with its audience, JWKS and scope replaces the Cognito pool', () => {
    expect(
      props({
        issuer: 'https://id.example.com/',
        audience: 'api',
        jwksUri: 'https://id.example.com/keys',
        requiredScope: 'w',
      }),
    ).toEqual({
      stackName: 'PlantStore',
      externalTrust: {
        issuer: 'https://id.example.com/',
        audience: 'api',
        jwksUri: 'https://id.example.com/keys',
        requiredScope: 'w',
      },
    });
  });

  test('an issuer without audience is refused', () => {
    expect(() => props({ issuer: 'https://id.example.com/' })).toThrow(/needs audience/);
  });

  test('numbers arrive as strings from -c and are checked', () => {
    expect(
      props({
        authorizerCacheTtlSeconds: '0',
        throttlingRateLimit: '10',
        throttlingBurstLimit: 20,
        maxBodyBytes: '1024',
        createPlantReservedConcurrency: '5',
        authorizerReservedConcurrency: 2,
        alarmApi5xxRate: '0.05',
        alarmApiLatencyP99Ms: '2000',
        alarmEmail: 'ops@example.com',
      }),
    ).toEqual({
      stackName: 'PlantStore',
      authorizerCacheTtl: Duration.seconds(0),
      throttlingRateLimit: 10,
      throttlingBurstLimit: 20,
      maxBodyBytes: 1024,
      createPlantReservedConcurrency: 5,
      authorizerReservedConcurrency: 2,
      alarmThresholds: { api5xxRate: 0.05, apiLatencyP99Ms: 2000 },
      alarmEmail: 'ops@example.com',
    });
    expect(() => props({ alarmApi4xxRate: 'half' })).toThrow(/alarmApi4xxRate must be a number >= 0, not half/);
    expect(props({ deployment: 'allAtOnce' })).toEqual({ stackName: 'PlantStore', deployment: 'allAtOnce' });
    expect(props({ profile: 'dev' })).toEqual({ stackName: 'PlantStore', profile: 'dev' });
    expect(() => props({ profile: 'staging' })).toThrow(/profile must be dev or prod, not staging/);
    expect(() => props({ env: 'dev' })).toThrow('Context env is now profile: -c profile=dev');
    expect(props({ waf: 'true', wafRateLimit: '500' })).toEqual({
      stackName: 'PlantStore',
      waf: { rateLimitPer5Minutes: 500 },
    });
    expect(props({ domainName: 'a.example.com', certificateArn: 'arn:c' })).toEqual({
      stackName: 'PlantStore',
      customDomain: { domainName: 'a.example.com', certificateArn: 'arn:c' },
    });
    expect(() => props({ domainName: 'a.example.com' })).toThrow(/domainName and certificateArn go together/);
    expect(() => props({ deployment: 'blue-green' })).toThrow(/deployment must be canary or allAtOnce, not blue-green/);
    expect(() => props({ throttlingRateLimit: 'fast' })).toThrow(
      /throttlingRateLimit must be a whole number >= 0, not fast/,
    );
  });
});
