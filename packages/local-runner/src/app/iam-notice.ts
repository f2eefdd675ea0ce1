// What of AuthorizationType AWS_IAM on a REST method, an HTTP API route or a WebSocket API's $connect the runner does not do, said at start: it
// checks a request's SigV4 signature (gateway/sigv4.ts) against its own credentials, but evaluates no IAM policy.

/**
 * One line naming the routes of API `apiId` (of `stackName`) with AWS_IAM (`named`: `GET /items`); none without any.
 * A signed request reaches them whatever the caller's (or the role's) policies allow: on AWS, a caller that no
 * identity-based policy allows `execute-api:Invoke` is refused 403.
 */
export const iamNotice = (stackName: string, apiId: string, named: string[]): string[] =>
  named.length === 0
    ? []
    : [
        `${stackName}/${apiId}: AWS_IAM on ${named.join(', ')}: the runner checks a request's SigV4 signature against its own credentials (access key id local, secret local), but evaluates no IAM policy yet (the caller's, the role's)`,
      ];
