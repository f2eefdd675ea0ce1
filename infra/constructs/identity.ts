import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  OAuthScope,
  ResourceServerScope,
  UserPool,
  type UserPoolClient,
  UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { OperationScopes, TokenTrust } from './bearer-authorizer.ts';

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

/**
 * The API's token issuer when no other is configured: a Cognito user pool for machine clients only, with the
 * contract's scopes (`plants/write`: resource server `plants`, its scope `write`), one app client for the OAuth
 * client-credentials grant that may ask for each, and a domain that serves the token endpoint.
 */
export class Identity extends Construct {
  readonly trust: TokenTrust;
  readonly client: UserPoolClient;

  /** `operations`: the contract's, whose scopes the pool issues (each `<resource server>/<scope>`, Cognito's form). */
  constructor(scope: Construct, id: string, operations: readonly OperationScopes[]) {
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
    const servers = new Map<string, ResourceServerScope[]>();
    for (const scope of new Set(operations.flatMap(({ scopes }) => scopes))) {
      const [, identifier, name] = /^(.+)\/([^/]+)$/.exec(scope) ?? [];
      if (identifier === undefined || name === undefined) {
        throw new Error(`Scope ${scope}: a Cognito scope is <resource server>/<name>; or deploy with -c issuer=...`);
      }
      const needing = operations.filter(({ scopes }) => scopes.includes(scope)).map(({ operationId }) => operationId);
      const description = `Needed by ${needing.join(', ')}`.slice(0, 256);
      servers.set(identifier, [
        ...(servers.get(identifier) ?? []),
        new ResourceServerScope({ scopeName: name, scopeDescription: description }),
      ]);
    }
    const clientScopes = [...servers].flatMap(([identifier, scopes]) => {
      // `plants` keeps the construct id it was first deployed with: a new logical id would make CloudFormation create
      // a second server with the same identifier before deleting the first, which Cognito refuses.
      const serverId = identifier === 'plants' ? 'ResourceServer' : `ResourceServer-${identifier}`;
      const server = new UserPoolResourceServer(this, serverId, { userPool: pool, identifier, scopes });
      return scopes.map((scope) => OAuthScope.resourceServer(server, scope));
    });
    this.client = pool.addClient('Client', {
      generateSecret: true,
      oAuth: { flows: { clientCredentials: true }, scopes: clientScopes },
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
