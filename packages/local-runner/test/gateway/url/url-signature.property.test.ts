// A function URL's AuthType AWS_IAM: "When your function URL receives a request, Lambda also calculates the SigV4
// signature. Lambda processes the request only if the signatures match" ("Invoking Lambda function URLs",
// https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html). The oracle is the aws4 package, a signer written
// apart from the runner's check (which recomputes with @smithy/signature-v4): whatever the method, path, query, headers
// and body, a request aws4 signed with the runner's credentials passes, and the same request with one part changed
// after signing, or signed with another secret, does not.
import type { IncomingMessage } from 'node:http';
import { describe, expect, test } from '@jest/globals';
import aws4 from 'aws4';
import fc from 'fast-check';
import { signedCaller } from '../../../src/gateway/url/authorize.ts';

const host = '127.0.0.1:4321';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'local' };

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** `sent` as the server sees it: its raw headers, and its URL. */
const received = ({ method, path, headers }: Sent) => ({
  request: { method, rawHeaders: Object.entries({ host, ...headers }).flat() } as unknown as IncomingMessage,
  url: new URL(`http://${host}${path}`),
});

const signedBy = (sent: Omit<Sent, 'headers'> & { headers?: Record<string, string> }, secret = 'local'): Sent => {
  const options = aws4.sign(
    { host, service: 'lambda', region: 'us-east-1', ...sent, ...(sent.body === '' && { body: undefined }) },
    { ...credentials, secretAccessKey: secret },
  );
  const headers = Object.fromEntries(
    Object.entries(options.headers ?? {})
      .filter(([name]) => name.toLowerCase() !== 'host')
      .map(([name, value]) => [name, String(value)]),
  );
  return { ...sent, headers };
};

const passes = async (sent: Sent, body = sent.body) => {
  const { request, url } = received(sent);
  return (await signedCaller(request, url, Buffer.from(body))) !== undefined;
};

// No dot segments (`.`, `..`): a client resolves them before it sends (RFC 3986 section 5.2.4).
const segment = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._~-]{0,7}$/);
const requests = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
  path: fc
    .tuple(fc.array(segment, { maxLength: 4 }), fc.array(fc.tuple(segment, segment), { maxLength: 3 }))
    .map(
      ([segments, query]) =>
        `/${segments.join('/')}${query.length > 0 ? `?${query.map(([name, value]) => `${name}=${value}`).join('&')}` : ''}`,
    ),
  headers: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,6}$/), fc.stringMatching(/^[a-zA-Z0-9]{1,10}$/), {
    maxKeys: 3,
  }),
  body: fc.string({ maxLength: 40 }),
});

describe('SigV4 on a function URL with AuthType AWS_IAM', () => {
  test("a request signed with the runner's credentials passes", async () => {
    await fc.assert(fc.asyncProperty(requests, async (sent) => expect(await passes(signedBy(sent))).toBe(true)));
  });

  test('signed with another secret, it does not', async () => {
    await fc.assert(
      fc.asyncProperty(requests, async (sent) => expect(await passes(signedBy(sent, 'other'))).toBe(false)),
    );
  });

  test('with its path, a signed header or its body changed after signing, it does not', async () => {
    await fc.assert(
      fc.asyncProperty(requests, fc.constantFrom('path', 'header', 'body'), async (sent, changed) => {
        const signed = signedBy({ ...sent, headers: { ...sent.headers, 'x-signed': 'yes' } });
        if (changed === 'path') expect(await passes({ ...signed, path: `/changed${signed.path}` })).toBe(false);
        if (changed === 'header')
          expect(await passes({ ...signed, headers: { ...signed.headers, 'x-signed': 'no' } })).toBe(false);
        // The body's SHA-256 is part of the canonical request, so of the signature.
        if (changed === 'body') expect(await passes(signed, `${signed.body}!`)).toBe(false);
      }),
    );
  });

  test('unsigned, or with the signature in the query string (a presigned URL), it does not pass', async () => {
    expect(await passes({ method: 'GET', path: '/', headers: {}, body: '' })).toBe(false);
    const presigned = aws4.sign(
      { host, path: '/', service: 'lambda', region: 'us-east-1', signQuery: true },
      credentials,
    );
    expect(await passes({ method: 'GET', path: presigned.path ?? '/', headers: {}, body: '' })).toBe(false);
  });
});
