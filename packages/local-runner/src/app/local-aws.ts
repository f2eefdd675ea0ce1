/** Pseudo parameters as the local runner answers them: the region and account every local resource is in. */
export const localAws = {
  region: 'us-east-1',
  accountId: '000000000000',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
  /**
   * The credentials the runner gives its functions (the local DynamoDB takes any), and the ones a function URL with
   * AuthType AWS_IAM checks a request's SigV4 signature against. A role's credentials on Lambda are temporary, so they
   * come with a session token.
   */
  credentials: { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'local' },
};

/**
 * The SQS endpoint a queue's URL names where the template is read before the local SQS listens (an integration's
 * parameters): AWS's own for the region. The local SQS finds a queue by the name its URL ends with, whatever the host.
 */
export const awsSqsEndpoint = `https://sqs.${localAws.region}.${localAws.urlSuffix}`;
