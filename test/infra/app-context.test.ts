import { describe, expect, test } from '@jest/globals';
import { App, Duration } from 'aws-cdk-lib';
import { propsFromContext } from '../../infra/app-context.ts';
import type { PlantStoreStackProps } from '../../infra/plant-store-stack.ts';
import { oddHostOrigins } from '../helpers/cors-origins.ts';

const props = (context: Record<string, unknown>) => propsFromContext(new App({ context }).node);

describe('propsFromContext', () => {
  test('without context: the stack PlantStore with its defaults and its own Cognito pool', () => {
    expect(props({})).toEqual({ stackName: 'PlantStore' });
  });

  test("an issuer with its audience, JWKS and its scopes' names replaces the Cognito pool", () => {
    expect(
      props({
        issuer: 'https://id.example.com/',
        audience: 'api',
        jwksUri: 'https://id.example.com/keys',
        scopes: '{"plants/write":"Plants.Write"}',
      }),
    ).toEqual({
      stackName: 'PlantStore',
      externalTrust: { issuer: 'https://id.example.com/', audience: 'api', jwksUri: 'https://id.example.com/keys' },
      scopes: { 'plants/write': 'Plants.Write' },
    });
  });

  test('scopes is contract, none, or a JSON object of names; anything else stops the synth, naming it', () => {
    expect(props({ scopes: 'contract' }).scopes).toBe('contract');
    expect(props({ scopes: 'none' }).scopes).toBe('none');
    for (const value of ['plants/write', '["plants/write"]', '{"plants/write": 1}', 'null']) {
      expect(() => props({ scopes: value })).toThrow(/^Context scopes must be contract, none, or a JSON object/);
    }
  });

  test('corsOrigin is one origin as a browser sends it, or *; what makes no sense stops the synth, saying why', () => {
    // An origin is RFC 6454's serialization (scheme://host[:port], lower case, no path): what a browser sends in Origin
    // and matches Access-Control-Allow-Origin against, exactly (the Fetch standard's CORS check).
    for (const origin of [
      'https://app.example.com',
      'https://app.example.com:8443',
      'http://localhost:5173',
      'http://127.0.0.1:8080',
      'http://[::1]:3000',
      'https://xn--bcher-kva.example',
      'https://10.0.0.1:8443',
      'https://[2001:db8::1]',
      '*',
    ]) {
      expect(props({ corsOrigin: origin }).corsOrigin).toBe(origin);
    }
    const refused: [string, RegExp][] = [
      ['https://a.example.com,https://b.example.com', /one origin, or \*: every answer the gateway makes itself/],
      ['https://a.example.com https://b.example.com', /one origin, or \*/],
      ['null', /null is the origin every sandboxed frame/],
      ['https://*.example.com', /a wildcard is not an origin/],
      ['https://app.example.com/', /scheme:\/\/host\[:port\] .*: https:\/\/app\.example\.com$/],
      ['https://App.Example.com', /: https:\/\/app\.example\.com$/],
      ['https://app.example.com:443', /no default port\): https:\/\/app\.example\.com$/],
      ['app.example.com', /an origin is scheme:\/\/host\[:port\]/],
      ['http://app.example.com', /plain http only on loopback/],
      ['wss://app.example.com', /an origin is https \(or http on loopback\)/],
      // What the URL parser rewrites: the origin a browser would send is another.
      ['https://bücher.example', /: https:\/\/xn--bcher-kva\.example$/],
      ['https://a\\b.example', /: https:\/\/a$/],
      ['https://a%62.example', /: https:\/\/ab\.example$/],
      ['https://a%zz.example', /an origin is scheme:\/\/host\[:port\]/],
      ['https://user@app.example.com', /: https:\/\/app\.example\.com$/],
      ['https://a|b.example', /an origin is scheme:\/\/host\[:port\]/],
      ['https://app.example.com:65536', /an origin is scheme:\/\/host\[:port\]/],
      ['https://a b.example', /one origin, or \*/],
    ];
    for (const [origin, reason] of refused) {
      expect(() => props({ corsOrigin: origin })).toThrow(
        new RegExp(`^Context corsOrigin ${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      );
      expect(() => props({ corsOrigin: origin })).toThrow(reason);
    }
  });

  test.each(oddHostOrigins)(
    'corsOrigin %s stops the synth, naming the host or port that is wrong',
    (origin, reason) => {
      const synth = () => props({ corsOrigin: origin });
      expect(synth).toThrow(new RegExp(`^Context corsOrigin ${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(synth).toThrow(reason);
    },
  );

  test('the former requiredScope stops the synth, saying what replaced it with the value given', () => {
    expect(() => props({ requiredScope: 'Plants.Write' })).toThrow(
      `Context requiredScope is now scopes, a scope per operation (openapi.yaml): -c scopes=contract when the issuer issues those names, or -c scopes='{"plants/write":"Plants.Write"}'`,
    );
  });

  test('the issuer (discovered keys) or its jwksUri must be https, plain http only on loopback', () => {
    expect(() => props({ issuer: 'http://id.example.com/', audience: 'api' })).toThrow(
      /Context issuer must be an https URL \(plain http only on loopback\), not http:\/\/id.example.com\//,
    );
    expect(() => props({ issuer: 'id.example.com', audience: 'api' })).toThrow(/Context issuer must be an https URL/);
    expect(() =>
      props({ issuer: 'https://id.example.com/', audience: 'api', jwksUri: 'http://id.example.com/keys' }),
    ).toThrow(/Context jwksUri must be an https URL/);
    expect(props({ issuer: 'http://127.0.0.1:8080/realms/plants', audience: 'api' }).externalTrust).toEqual({
      issuer: 'http://127.0.0.1:8080/realms/plants',
      audience: 'api',
    });
  });

  test('jwtAlgorithms lists what the authorizer can verify; anything else stops the synth, naming it', () => {
    expect(props({ jwtAlgorithms: 'PS256, EdDSA,Ed25519' }).jwtAlgorithms).toEqual(['PS256', 'EdDSA', 'Ed25519']);
    expect(() => props({ jwtAlgorithms: 'RS256,HS256' })).toThrow(
      /^Context jwtAlgorithms must list asymmetric algorithms among RS256, .*, not HS256$/,
    );
    expect(() => props({ jwtAlgorithms: 'PS257' })).toThrow(/not PS257$/);
    expect(() => props({ jwtAlgorithms: 'none' })).toThrow(/not none$/);
  });

  test('each profile has its own stack: dev alone is PlantStoreDev, never the prod stack updated in place', () => {
    // Before, `-c profile=dev` alone synthesized the stack PlantStore: a deploy rewrote production's stage and alarms.
    expect(props({ profile: 'dev' })).toEqual({ stackName: 'PlantStoreDev', profile: 'dev' });
    expect(props({ profile: 'prod' })).toEqual({ stackName: 'PlantStore', profile: 'prod' });
    expect(props({ profile: 'dev', stackName: 'PlantStoreDevEu' }).stackName).toBe('PlantStoreDevEu');
    expect(() => props({ profile: 'dev', stackName: 'PlantStore' })).toThrow(
      "Context stackName PlantStore is the prod profile's stack: with profile dev, deploy PlantStoreDev (the default) or another name",
    );
    expect(() => props({ stackName: 'PlantStoreDev' })).toThrow(/is the dev profile's stack: with profile prod/);
  });

  test('an issuer without audience is refused', () => {
    expect(() => props({ issuer: 'https://id.example.com/' })).toThrow(/needs audience/);
  });

  test('profile is dev or prod; anything else stops the synth, naming it', () => {
    expect(() => props({ profile: 'staging' })).toThrow('Context profile must be dev or prod, not staging');
  });

  test('the former env stops the synth, saying what replaced it with the value given', () => {
    expect(() => props({ env: 'dev' })).toThrow('Context env is now profile: -c profile=dev');
  });

  // Each arrives as text from -c, or as a number from cdk.json.
  test.each<[string, (value: number) => Partial<PlantStoreStackProps>]>([
    ['authorizerCacheTtlSeconds', (value) => ({ authorizerCacheTtl: Duration.seconds(value) })],
    ['throttlingRateLimit', (value) => ({ throttlingRateLimit: value })],
    ['throttlingBurstLimit', (value) => ({ throttlingBurstLimit: value })],
    ['maxBodyBytes', (value) => ({ maxBodyBytes: value })],
    ['createPlantReservedConcurrency', (value) => ({ createPlantReservedConcurrency: value })],
    ['authorizerReservedConcurrency', (value) => ({ authorizerReservedConcurrency: value })],
    ['alarmApiLatencyP99Ms', (value) => ({ alarmThresholds: { apiLatencyP99Ms: value } })],
    ['alarmIntegrationLatencyP99Ms', (value) => ({ alarmThresholds: { integrationLatencyP99Ms: value } })],
  ])('%s is a whole number >= 0; anything else stops the synth, naming it', (name, expected) => {
    for (const [given, value] of [
      ['0', 0],
      ['1024', 1024],
      [20, 20],
    ] as const) {
      expect(props({ [name]: given })).toEqual({ stackName: 'PlantStore', ...expected(value) });
    }
    // Number() would read the last four (16, 1000, 3, 7): a setting is written in decimal digits.
    for (const refused of ['fast', '-1', '2.5', '9007199254740993', '0x10', '1e3', '0b11', ' 7 ']) {
      expect(() => props({ [name]: refused })).toThrow(`Context ${name} must be a whole number >= 0, not ${refused}`);
    }
  });

  test.each<[string, (value: number) => Partial<PlantStoreStackProps>]>([
    ['alarmApi5xxRate', (value) => ({ alarmThresholds: { api5xxRate: value } })],
    ['alarmApi4xxRate', (value) => ({ alarmThresholds: { api4xxRate: value } })],
  ])('%s is a number >= 0; anything else stops the synth, naming it', (name, expected) => {
    for (const [given, value] of [
      ['0', 0],
      ['0.05', 0.05],
      [1, 1],
    ] as const) {
      expect(props({ [name]: given })).toEqual({ stackName: 'PlantStore', ...expected(value) });
    }
    for (const refused of ['half', '-0.1', 'Infinity', '0x1', '5e-2', ' 0.5', '.']) {
      expect(() => props({ [name]: refused })).toThrow(`Context ${name} must be a number >= 0, not ${refused}`);
    }
  });

  test('alarm thresholds given together are kept together', () => {
    expect(props({ alarmApi5xxRate: '0.05', alarmApiLatencyP99Ms: '2000' }).alarmThresholds).toEqual({
      api5xxRate: 0.05,
      apiLatencyP99Ms: 2000,
    });
  });

  test.each([
    ['alarmEmail', 'ops@example.com'],
    ['localDynamoDbEndpoint', 'http://127.0.0.1:8000'],
  ])('%s is taken as given; empty is unset', (name, value) => {
    expect(props({ [name]: value })).toEqual({ stackName: 'PlantStore', [name]: value });
    expect(props({ [name]: '' })).toEqual({ stackName: 'PlantStore' });
  });

  test('deployment is canary or allAtOnce; anything else stops the synth, naming it', () => {
    expect(props({ deployment: 'canary' })).toEqual({ stackName: 'PlantStore', deployment: 'canary' });
    expect(props({ deployment: 'allAtOnce' })).toEqual({ stackName: 'PlantStore', deployment: 'allAtOnce' });
    expect(() => props({ deployment: 'blue-green' })).toThrow(
      'Context deployment must be canary or allAtOnce, not blue-green',
    );
  });

  test('ignoreDeploymentAlarms is true or false, as text or a boolean; anything else stops the synth', () => {
    expect(props({ ignoreDeploymentAlarms: 'true' }).ignoreDeploymentAlarms).toBe(true);
    expect(props({ ignoreDeploymentAlarms: false }).ignoreDeploymentAlarms).toBe(false);
    expect(() => props({ ignoreDeploymentAlarms: 'yes' })).toThrow(
      'Context ignoreDeploymentAlarms must be true or false, not yes',
    );
  });

  test('waf is on only when true, with wafRateLimit (a whole number >= 0) when given', () => {
    expect(props({ waf: 'true' })).toEqual({ stackName: 'PlantStore', waf: {} });
    expect(props({ waf: 'true', wafRateLimit: '500' })).toEqual({
      stackName: 'PlantStore',
      waf: { rateLimitPer5Minutes: 500 },
    });
    expect(props({ waf: 'false', wafRateLimit: '500' })).toEqual({ stackName: 'PlantStore' });
    expect(() => props({ waf: 'true', wafRateLimit: 'lots' })).toThrow(
      'Context wafRateLimit must be a whole number >= 0, not lots',
    );
  });

  test('domainName goes with certificateArn, hostedZoneId with hostedZoneName; one alone stops the synth', () => {
    expect(props({ domainName: 'a.example.com', certificateArn: 'arn:c' })).toEqual({
      stackName: 'PlantStore',
      customDomain: { domainName: 'a.example.com', certificateArn: 'arn:c' },
    });
    expect(
      props({ domainName: 'a.example.com', certificateArn: 'arn:c', hostedZoneId: 'Z1', hostedZoneName: 'example.com' })
        .customDomain,
    ).toEqual({
      domainName: 'a.example.com',
      certificateArn: 'arn:c',
      hostedZoneId: 'Z1',
      hostedZoneName: 'example.com',
    });
    expect(() => props({ domainName: 'a.example.com' })).toThrow(/domainName and certificateArn go together/);
    expect(() => props({ certificateArn: 'arn:c' })).toThrow(/domainName and certificateArn go together/);
    expect(() => props({ domainName: 'a.example.com', certificateArn: 'arn:c', hostedZoneId: 'Z1' })).toThrow(
      /hostedZoneId and hostedZoneName go together/,
    );
  });
});
