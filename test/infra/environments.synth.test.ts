// Deploying into real accounts: several environments and regions side by side, settings that cannot work refused
// before anything is made, and a fix deployed past the alarms on purpose. Judged on the synthesized templates, with
// AWS's documented scopes of a name: a CloudWatch dashboard's is the account (AWS::CloudWatch::Dashboard), an IAM
// role's the account, the rest's the account and region.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../infra/app-context.ts';
import { PlantStoreStack } from '../../infra/plant-store-stack.ts';
import { appWithoutBundling } from '../helpers/synth-app.ts';

const account = '123456789012';

/** The stack `infra/app.ts` makes from this context, in `region` (undefined: environment-agnostic, as by default). */
const stackFrom = (context: Record<string, string>, region?: string) => {
  const app = appWithoutBundling(context);
  const { stackName, ...props } = propsFromContext(app.node);
  return new PlantStoreStack(app, stackName, { ...props, ...(region && { env: { account, region } }) });
};

/** The physical names a template gives, by the scope AWS keeps them unique in. */
const accountWide: Record<string, string> = {
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::IAM::Role': 'RoleName',
};
const regional: Record<string, string> = {
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Cognito::UserPoolDomain': 'Domain',
  'AWS::CodeDeploy::Application': 'ApplicationName',
  'AWS::WAFv2::WebACL': 'Name',
};

/**
 * Each name as CloudFormation would make it in `region` of `account`: pseudo parameters filled in, and a reference
 * to one of the stack's resources as that resource's generated name (unique to the stack).
 */
const physicalNames = (stack: PlantStoreStack, types: Record<string, string>) => {
  const { Resources } = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  };
  const region = stack.resolve(stack.region);
  const resolve = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const { Ref, 'Fn::Join': join, 'Fn::GetAtt': getAtt } = (value ?? {}) as Record<string, unknown>;
    const pseudo: Record<string, string> = {
      'AWS::Region': typeof region === 'string' ? region : 'us-east-1',
      'AWS::AccountId': account,
      'AWS::StackName': stack.stackName,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (typeof Ref === 'string') return pseudo[Ref] ?? `${stack.stackName}-${Ref}-generated`;
    if (Array.isArray(getAtt)) return `${stack.stackName}-${getAtt.join('.')}-generated`;
    if (Array.isArray(join)) return (join[1] as unknown[]).map(resolve).join(join[0] as string);
    throw new Error(`cannot resolve ${JSON.stringify(value)}`);
  };
  return Object.values(Resources).flatMap(({ Type, Properties }) => {
    const property = types[Type];
    const name = property === undefined ? undefined : Properties?.[property];
    return name === undefined ? [] : [`${Type} ${resolve(name)}`];
  });
};

describe('several environments, regions and accounts', () => {
  const everyEdge = {
    waf: 'true',
    domainName: 'plants.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
  };

  test('dev and prod, in one account and region, are two stacks that share no physical name', () => {
    const prod = stackFrom({ ...everyEdge }, 'eu-west-1');
    const dev = stackFrom({ ...everyEdge, profile: 'dev' }, 'eu-west-1');
    expect(dev.stackName).not.toBe(prod.stackName);
    const types = { ...accountWide, ...regional };
    const prodNames = physicalNames(prod, types);
    expect(prodNames.length).toBeGreaterThan(0);
    expect(physicalNames(dev, types).filter((name) => prodNames.includes(name))).toEqual([]);
  });

  test('one stack in two regions of an account shares no account-wide name (the dashboard was the stack name)', () => {
    const ireland = physicalNames(stackFrom({}, 'eu-west-1'), accountWide);
    const virginia = physicalNames(stackFrom({}, 'us-east-1'), accountWide);
    expect(ireland).toEqual([expect.stringMatching(/^AWS::CloudWatch::Dashboard PlantStore-eu-west-1$/)]);
    expect(virginia.filter((name) => ireland.includes(name))).toEqual([]);
  });
});

describe('settings that cannot work stop the synth, or the deploy before anything is made', () => {
  const domain = {
    domainName: 'plants.example.com',
    certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
  };

  test("a certificate from another region than the stack's is refused at synth when the region is known", () => {
    expect(() => stackFrom(domain, 'eu-west-1')).toThrow(
      "The certificate (certificateArn) is in us-east-1: a regional custom domain needs one in the stack's region, eu-west-1",
    );
    expect(() => stackFrom(domain, 'us-east-1')).not.toThrow();
    expect(() => stackFrom({ ...domain, certificateArn: 'not-an-arn' })).toThrow(/must be an ACM certificate ARN/);
  });

  test('unknown at synth (environment-agnostic), a rule compares the certificate region with the stack region', () => {
    const rules = Template.fromStack(stackFrom(domain)).toJSON().Rules;
    expect(rules).toMatchObject({
      [Object.keys(rules).find((id) => id.startsWith('CustomDomainCertificateInStackRegion')) ?? 'missing']: {
        Assertions: [{ Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] } }],
      },
    });
  });

  test('a hosted zone id without its name (or the name alone) is refused: no DNS record could be made', () => {
    const zones: Record<string, string>[] = [{ hostedZoneId: 'Z123' }, { hostedZoneName: 'example.com' }];
    for (const zone of zones) {
      expect(() => stackFrom({ ...domain, ...zone })).toThrow(/hostedZoneId and hostedZoneName go together/);
    }
  });

  test('the Cognito pool in a China region: refused at synth, or by a rule on the partition', () => {
    expect(() => stackFrom({}, 'cn-north-1')).toThrow(
      /cn-north-1: Cognito user pools are not offered in the China regions/,
    );
    const rules = Template.fromStack(stackFrom({})).toJSON().Rules;
    expect(rules.CognitoOffered).toEqual({
      Assertions: [
        {
          Assert: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AWS::Partition' }, 'aws-cn'] }] },
          AssertDescription: expect.stringContaining('-c issuer='),
        },
      ],
    });
    // An issuer of one's own deploys there.
    const external = { issuer: 'https://issuer.example.cn/', audience: 'plants' };
    expect(() => stackFrom(external, 'cn-north-1')).not.toThrow();
    expect(Template.fromStack(stackFrom(external)).toJSON().Rules?.CognitoOffered).toBeUndefined();
  });
});

describe('what cdk destroy leaves', () => {
  test('every resource the template keeps on stack deletion is one docs/deploy.md names, with how to delete it', () => {
    // DeletionPolicy Retain or RetainExceptOnCreate: CloudFormation leaves the resource when the stack is deleted.
    const { Resources } = Template.fromStack(stackFrom({})).toJSON() as {
      Resources: Record<string, { Type: string; DeletionPolicy?: string }>;
    };
    const kept = [
      ...new Set(
        Object.values(Resources)
          .filter(({ DeletionPolicy }) => DeletionPolicy === 'Retain' || DeletionPolicy === 'RetainExceptOnCreate')
          .map(({ Type }) => Type),
      ),
    ].sort();
    expect(kept).toEqual(['AWS::ApiGateway::Account', 'AWS::DynamoDB::Table', 'AWS::IAM::Role']);
    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const destroy = doc.slice(doc.indexOf('- **`cdk destroy`**'), doc.indexOf('- **A redeploy after destroy'));
    // Line breaks of the doc's paragraphs aside.
    const text = destroy.replace(/\s+/g, ' ');
    for (const named of [
      'plants table',
      'CloudWatch role',
      '`AWS::ApiGateway::Account`',
      'aws dynamodb delete-table',
    ]) {
      expect(text).toContain(named);
    }
  });
});

describe('a fix deployed while an alarm fires', () => {
  test('ignoreDeploymentAlarms: each deployment keeps its alarms but CodeDeploy ignores them, and the synth warns', () => {
    const groups = (stack: PlantStoreStack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::CodeDeploy::DeploymentGroup')).map(
        ({ Properties }) => Properties.AlarmConfiguration,
      );
    const usual = groups(stackFrom({}));
    expect(usual.length).toBeGreaterThan(0);
    for (const configuration of usual) expect(configuration).toMatchObject({ Enabled: true });

    const emergency = stackFrom({ ignoreDeploymentAlarms: 'true' });
    const ignoring = groups(emergency);
    expect(ignoring).toHaveLength(usual.length);
    ignoring.forEach((configuration, index) => {
      // AlarmConfiguration.Enabled false: CodeDeploy ignores the alarms for the deployment (its API reference).
      expect(configuration).toEqual({ ...usual[index], Enabled: false });
    });
    Annotations.fromStack(emergency).hasWarning('*', Match.stringLikeRegexp('Deployments ignore their alarms'));
    expect(() => stackFrom({ ignoreDeploymentAlarms: 'yes' })).toThrow(/ignoreDeploymentAlarms must be true or false/);
  });
});
