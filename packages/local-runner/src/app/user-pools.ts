// The Cognito user pools a template names, as the runner stands in for them: no Cognito runs locally, so the
// development issuer signs their tokens, under each pool's own issuer URL ("Verifying a JSON Web Token" in the Cognito
// guide: `iss` is https://cognito-idp.<region>.amazonaws.com/<user pool id>).
import { type CfnResource, ofType, props } from './cfn.ts';
import { localAws } from './local-aws.ts';
import { names } from './values.ts';

export interface UserPool {
  /** The pool's logical id, when the template holds it. */
  logicalId: string | undefined;
  /** Its id (`us-east-1_<logical id>` for a pool of the template; an external pool's, from its ARN). */
  poolId: string;
  /** Its app clients' ids (locally each client's logical id). */
  clientIds: string[];
}

/** A pool of the template's id locally: the region, `_`, its logical id (Cognito's `<region>_<id>` shape). */
export const localPoolId = (logicalId: string) => `${localAws.region}_${logicalId}`;

/** The `iss` of a pool's tokens. */
export const poolIssuer = (poolId: string) => `https://cognito-idp.${localAws.region}.amazonaws.com/${poolId}`;

export const poolArn = (poolId: string) =>
  `arn:aws:cognito-idp:${localAws.region}:${localAws.accountId}:userpool/${poolId}`;

/** The template's user pools, each with its clients. */
export const readUserPools = (resources: Record<string, CfnResource>): UserPool[] =>
  ofType(resources, 'AWS::Cognito::UserPool').map(([logicalId]) => ({
    logicalId,
    poolId: localPoolId(logicalId),
    clientIds: ofType(resources, 'AWS::Cognito::UserPoolClient')
      .filter(([clientId, client]) =>
        names(props(client).UserPoolId, logicalId, resources, { resource: clientId, property: 'UserPoolId' }, [
          'AWS::Cognito::UserPool',
        ]),
      )
      .map(([clientId]) => clientId),
  }));
