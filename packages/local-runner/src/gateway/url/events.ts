// The event a function URL sends its function ("Invoking Lambda function URLs", "Request payload format"): an HTTP
// API's payload format 2.0 (http/events.ts builds it) with what differs: the `$default` route key and stage as
// placeholders, no path parameters nor stage variables, the URL's own domain (`<url-id>.lambda-url.<region>.on.aws`),
// `authentication` null, and the IAM caller in `authorizer.iam` when the URL's AuthType is AWS_IAM.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { UrlApi } from '../../app/api.ts';
import { localAws } from '../../app/local-aws.ts';
import { eventV2 } from '../http/events.ts';
import type { IamCaller } from '../sigv4.ts';

/** The URL's id, the first label of its domain: 32 lowercase characters on AWS; locally, of its stack and logical id. */
const urlIdOf = ({ stackName, apiId }: Pick<UrlApi, 'stackName' | 'apiId'>) =>
  createHash('sha256').update(`${stackName}/${apiId}`).digest('hex').slice(0, 32);

/**
 * The event of `request` (`url`, `body`) to the function URL `api`; `requestId`: the invocation's (the guide's
 * `requestContext.requestId`, "The ID of the invocation request"); `caller`: the signed request's IAM caller.
 */
export const urlEvent = (
  api: UrlApi,
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
  caller: IamCaller | undefined,
) => {
  const made = eventV2(api, { name: '$default', variables: {} }, request, url, { routeKey: '$default' }, {}, body);
  const urlId = urlIdOf(api);
  return {
    ...made,
    requestContext: {
      ...made.requestContext,
      apiId: urlId,
      authentication: null,
      ...(caller && { authorizer: { iam: caller } }),
      domainName: `${urlId}.lambda-url.${localAws.region}.on.aws`,
      domainPrefix: urlId,
      requestId,
    },
  };
};
