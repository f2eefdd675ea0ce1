// A call to the local JSON services (SSM, Secrets Manager) as an SDK sends it: a POST of `body` with its X-Amz-Target,
// signed with SigV4 by @smithy/signature-v4 (the AWS SDK's signer) for `service` (`ssm`, `secretsmanager`), with the
// runner's credentials unless others are given; `tamper` changes the signed headers before they are sent.
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../../src/app/local-aws.ts';
import { Sha256 } from '../../src/gateway/sigv4.ts';

export interface JsonCall {
  target: string;
  body: string;
  service?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  region?: string;
  tamper?: (headers: Record<string, string>) => Record<string, string>;
}

/** The headers of the call (Host left to the client), signed for `endpoint`. */
export const signedJsonHeaders = async (endpoint: string, call: JsonCall) => {
  const url = new URL(endpoint);
  const { service = 'ssm', credentials = localAws.credentials, region = localAws.region, tamper = (h) => h } = call;
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': call.target },
    body: call.body,
  });
  return tamper(Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host')));
};

/** The call's status and its error type (`__type`), undefined when it succeeded. */
export const callJsonService = async (endpoint: string, call: JsonCall) => {
  const headers = await signedJsonHeaders(endpoint, call);
  const response = await fetch(endpoint, { method: 'POST', headers, body: call.body });
  const answer = (await response.json()) as { __type?: string };
  return [response.status, answer.__type] as const;
};
