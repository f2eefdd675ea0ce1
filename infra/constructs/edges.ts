// What a deployment may put in front of the API, each off by default (docs/deploy.md, "Optional edges", with their cost):
// a WAF web ACL, and a custom domain name.
import { Aws, CfnOutput, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import { EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface WebFirewallProps {
  api: RestApi;
  /** Requests per IP in 5 minutes before it is blocked (429). */
  rateLimitPer5Minutes: number;
  /** Bodies larger than this are blocked (413); within WAF's 64 KB inspection limit for API Gateway. */
  maxBodyBytes: number;
}

const errorBody = (status: number, message: string) => ({
  contentType: 'APPLICATION_JSON',
  content: JSON.stringify({ error: status, message }),
});

/**
 * A regional WAF web ACL on the API's stage: AWS's common managed rules, a rate limit per IP (429), and a body-size
 * rule (413) — answered with the API's Error JSON (WAF's custom responses; a blocked managed rule answers through
 * the WAF_FILTERED gateway response, 403, also the Error JSON).
 */
export class WebFirewall extends Construct {
  constructor(scope: Construct, id: string, { api, rateLimitPer5Minutes, maxBodyBytes }: WebFirewallProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const acl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PlantStoreWebAcl'),
      // Inspect bodies up to 64 KB (the default for API Gateway is 16 KB), so the size rule sees the API's limit.
      associationConfig: { requestBody: { API_GATEWAY: { defaultSizeInspectionLimit: 'KB_64' } } },
      customResponseBodies: {
        tooLarge: errorBody(413, `Request body is over ${maxBodyBytes} bytes`),
        tooMany: errorBody(429, 'Too many requests'),
      },
      rules: [
        {
          name: 'BodySize',
          priority: 0,
          statement: {
            sizeConstraintStatement: {
              fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
              comparisonOperator: 'GT',
              size: maxBodyBytes,
              textTransformations: [{ priority: 0, type: 'NONE' }],
            },
          },
          action: { block: { customResponse: { responseCode: 413, customResponseBodyKey: 'tooLarge' } } },
          visibilityConfig: visibility('BodySize'),
        },
        {
          name: 'RatePerIp',
          priority: 1,
          statement: { rateBasedStatement: { limit: rateLimitPer5Minutes, aggregateKeyType: 'IP' } },
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'tooMany' } } },
          visibilityConfig: visibility('RatePerIp'),
        },
        {
          name: 'AwsCommonRules',
          priority: 2,
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // The rule set's rules that would refuse what the API accepts count instead of blocking ("Core rule set
              // (CRS) managed rule group", https://docs.aws.amazon.com/waf/latest/developerguide/aws-managed-rule-groups-baseline.html):
              // SizeRestrictions_BODY blocks bodies over 8 KB, where the API takes up to maxBodyBytes (the BodySize
              // rule above enforces that); NoUserAgent_HEADER blocks requests without a User-Agent, which RFC 9110
              // asks clients for (SHOULD) but this API's clients (scripts, devices, SDKs configured bare) need not send.
              ruleActionOverrides: ['SizeRestrictions_BODY', 'NoUserAgent_HEADER'].map((name) => ({
                name,
                actionToUse: { count: {} },
              })),
            },
          },
          overrideAction: { none: {} },
          visibilityConfig: visibility('AwsCommonRules'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      webAclArn: acl.attrArn,
      resourceArn: api.deploymentStage.stageArn,
    });
  }
}

export interface CustomDomainProps {
  api: RestApi;
  domainName: string;
  /** An ACM certificate for `domainName`, in the stack's region. */
  certificateArn: string;
  /** With both, an alias record for `domainName` in this Route 53 hosted zone. */
  hostedZoneId?: string;
  hostedZoneName?: string;
}

/** The API under a domain name of its own (TLS 1.2), so its base URL survives re-creating the stack. */
export class CustomDomain extends Construct {
  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    // A regional custom domain needs its certificate in the API's region ("Setting up a regional custom domain name in
    // API Gateway": https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-regional-api-custom-domain-create.html).
    const [, , service, certificateRegion] = props.certificateArn.split(':');
    if (service !== 'acm' || !certificateRegion) {
      throw new Error(
        `Context certificateArn must be an ACM certificate ARN (arn:<partition>:acm:<region>:...), not ${props.certificateArn}`,
      );
    }
    const { region } = Stack.of(this);
    const mismatch = `The certificate (certificateArn) is in ${certificateRegion}: a regional custom domain needs one in the stack's region`;
    if (!Token.isUnresolved(region) && region !== certificateRegion) throw new Error(`${mismatch}, ${region}`);
    if (Token.isUnresolved(region)) {
      // Unknown at synth (an environment-agnostic stack): a rule fails the deploy before any resource is made.
      new CfnRule(this, 'CertificateInStackRegion', {
        assertions: [{ assert: Fn.conditionEquals(Aws.REGION, certificateRegion), assertDescription: mismatch }],
      });
    }
    const domain = props.api.addDomainName('Domain', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    if (props.hostedZoneId && props.hostedZoneName) {
      new ARecord(this, 'Alias', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', {
          hostedZoneId: props.hostedZoneId,
          zoneName: props.hostedZoneName,
        }),
        recordName: props.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(domain)),
      });
    }
    new CfnOutput(Stack.of(this), 'CustomDomainUrl', {
      description: 'The API under its own domain: POST <CustomDomainUrl>/plants',
      value: `https://${props.domainName}`,
    });
  }
}
