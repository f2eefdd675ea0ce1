import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  OAuthScope,
  ResourceServerScope,
  UserPool,
  type UserPoolClient,
  UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

/**
 * The stack name as the start of the Cognito domain prefix, `<stack name>-<account id>`: Cognito takes lower-case
 * letters, digits and hyphens, at most 63 characters, and refuses "aws", "amazon" and "cognito" in it
 * (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-assign-domain-prefix.html).
 * A name it cannot take stops the synth here, instead of the deploy half-way.
 */
const cognitoDomainPrefixPart = (stackName: string) => {
  const part = stackName.toLowerCase();
  const reserved = ['aws', 'amazon', 'cognito'].find((word) => part.includes(word));
  if (reserved) {
    throw new Error(
      `Stack name ${stackName}: Cognito refuses "${reserved}" in its domain prefix; choose another stackName`,
    );
  }
  // 63 characters at most, less "-" and a 12-digit account id.
  if (part.length > 50) throw new Error(`Stack name ${stackName}: at most 50 characters for the Cognito domain prefix`);
  return part;
};

/** Which tokens the authorizer trusts. */
export interface TokenTrust {
  issuer: string;
  /** `aud`, or the Cognito app client id. */
  audience: string;
  /** Omitted: where the issuer's OpenID Connect discovery document says (one more request at cold start). */
  jwksUri?: string;
  /** '' for none. */
  requiredScope: string;
}

/**
 * The API's token issuer when no other is configured: a Cognito user pool for machine clients only, with a resource
 * server `plants` and its scope `plants/write`, one app client for the OAuth client-credentials grant, and a domain
 * that serves the token endpoint.
 */
export class Identity extends Construct {
  readonly trust: TokenTrust;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    const pool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { username: true },
      passwordPolicy: {
        minLength: 16,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
      },
      deletionProtection: false,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(pool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason: 'No people sign in: the pool serves machine clients (client credentials), so no MFA.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason: 'Threat protection (Plus tier) guards user sign-ins; this pool has only app clients.',
      },
    );
    const write = new ResourceServerScope({ scopeName: 'write', scopeDescription: 'Create plants' });
    const identifier = 'plants';
    const resourceServer = new UserPoolResourceServer(this, 'ResourceServer', {
      userPool: pool,
      identifier,
      scopes: [write],
    });
    const writeScope = OAuthScope.resourceServer(resourceServer, write);
    this.client = pool.addClient('Client', {
      generateSecret: true,
      oAuth: { flows: { clientCredentials: true }, scopes: [writeScope] },
      accessTokenValidity: Duration.hours(1),
      preventUserExistenceErrors: true,
    });
    // Cognito domain prefixes are global per region: the account id makes this one unique.
    const domain = pool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: `${cognitoDomainPrefixPart(stack.stackName)}-${stack.account}` },
    });

    const issuer = `https://${pool.userPoolProviderUrl}`;
    this.trust = {
      issuer,
      // Where Cognito publishes a pool's keys (its guide to verifying tokens): known, so not discovered.
      jwksUri: `${issuer}/.well-known/jwks.json`,
      audience: this.client.userPoolClientId,
      // As a literal (the resource server's identifier is one), not a reference to the resource server: the value
      // reads the same in the template, to sam local and to the local runner.
      requiredScope: `${identifier}/${write.scopeName}`,
    };

    new CfnOutput(stack, 'TokenUrl', {
      description: 'OAuth 2.0 token endpoint (client-credentials grant)',
      value: `${domain.baseUrl()}/oauth2/token`,
    });
    new CfnOutput(stack, 'ClientId', { description: 'App client id', value: this.client.userPoolClientId });
    new CfnOutput(stack, 'ClientSecretCommand', {
      description: 'Prints the app client secret',
      value: `aws cognito-idp describe-user-pool-client --region ${stack.region} --user-pool-id ${pool.userPoolId} --client-id ${this.client.userPoolClientId} --query UserPoolClient.ClientSecret --output text`,
    });
  }
}
