// The local S3's HTTP server (the REST-XML protocol of the Amazon S3 API Reference), on a loopback port of its own.
// A request names its bucket in the path (`/<bucket>/<key>`, path-style) or in the host (`<bucket>.localhost`,
// virtual-hosted style: RFC 6761 keeps `.localhost` names on loopback), is signed with the runner's credentials (in
// its Authorization header, or as a presigned URL), and is answered by its operation (routes.ts), or with S3's
// `<Error>` document. A browser's request (an Origin) is answered only as the bucket's CORS configuration allows.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { localAws } from '../../app/local-aws.ts';
import { RunnerError } from '../../errors.ts';
import { checkSignature, type SignatureRefusal } from '../../gateway/sigv4.ts';
import {
  afterBody,
  hostIsServed,
  hostRefusal,
  listenOnLoopback,
  requestHost,
  respondingToEveryRequest,
} from '../../http-server.ts';
import { readBody } from '../../request-body.ts';
import type { S3Answer, S3Call, S3Context } from './call.ts';
import { corsHeaders, preflight } from './cors.ts';
import { errorDocument, S3Error } from './errors.ts';
import { type ChunkSigning, streamingPayloads } from './payload.ts';
import { isFormUpload } from './post.ts';
import { route } from './routes.ts';

/** The largest request body taken: the object is held in memory while it is stored (docs/s3.md). */
const bodyLimit = 512 * 1024 * 1024;

/** S3's encoding of a path to sign: every byte but the unreserved characters and `/` percent-encoded. */
const s3Encoded = (decoded: string) =>
  encodeURIComponent(decoded)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The request's path and query as sent (the target's, an absolute-form's included), undecoded. */
const targetOf = (request: IncomingMessage) => {
  const raw = request.url ?? '/';
  const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i, '') : raw;
  const mark = target.indexOf('?');
  return {
    path: mark < 0 ? target : target.slice(0, mark),
    query: mark < 0 ? '' : target.slice(mark + 1),
  };
};

const invalidUri = () => new S3Error(400, 'InvalidURI', "Couldn't parse the specified URI.");

/** The bucket and key a request names: from its host (`<bucket>.localhost`), else from its path. */
const addressOf = (host: string | undefined, path: string) => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw invalidUri();
  }
  if (!decoded.startsWith('/')) throw invalidUri();
  const name = (host ?? '').toLowerCase().replace(/:\d*$/, '');
  const hosted = /^(.+)\.localhost$/.exec(name)?.[1];
  if (hosted !== undefined) return { bucket: hosted, key: decoded === '/' ? undefined : decoded.slice(1), decoded };
  const [, bucket, key] = /^\/([^/]*)(?:\/(.*))?$/s.exec(decoded) ?? [];
  return {
    bucket: bucket === '' ? undefined : bucket,
    key: key === undefined || key === '' ? undefined : key,
    decoded,
  };
};

/** A refusal of the shared SigV4 check, as S3 names it ("Error responses", Amazon S3 API Reference). */
const signatureError = (refused: SignatureRefusal, presigned: boolean): S3Error => {
  switch (refused.reason) {
    case 'missing':
      return new S3Error(403, 'AccessDenied', 'Access Denied');
    case 'incomplete':
      return new S3Error(
        400,
        presigned ? 'AuthorizationQueryParametersError' : 'AuthorizationHeaderMalformed',
        refused.message,
      );
    case 'unrecognized':
      return new S3Error(
        403,
        'InvalidAccessKeyId',
        `The AWS Access Key Id you provided does not exist in our records: the local S3 takes the runner's access key (${localAws.credentials.accessKeyId})`,
      );
    case 'invalid':
      return new S3Error(403, 'SignatureDoesNotMatch', refused.message);
  }
};

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/** What checks a signed chunked upload's chunks: its seed signature and signing key (sigv4-streaming). */
const chunkSigning = (request: IncomingMessage): ChunkSigning | undefined => {
  if (!String(request.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD'))
    return undefined;
  const [, day = '', region = '', service = '', seed = ''] =
    /Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request.*Signature=([0-9a-f]{64})/.exec(
      String(request.headers.authorization ?? ''),
    ) ?? [];
  const scope = `${day}/${region}/${service}/aws4_request`;
  const key = hmac(
    hmac(hmac(hmac(`AWS4${localAws.credentials.secretAccessKey}`, day), region), service),
    'aws4_request',
  );
  return { seed, date: String(request.headers['x-amz-date'] ?? ''), scope, key };
};

/** `20240101T000000Z` as a Date; undefined when it is not one. */
const basicDate = (text: string | null) => {
  const [, y, mo, d, h, mi, sec] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '') ?? [];
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/**
 * A presigned URL past its time, refused as S3 refuses it (403 AccessDenied, "Request has expired", with its
 * X-Amz-Expires, Expires and ServerTime), before its signature is checked.
 */
const checkExpiry = (query: URLSearchParams) => {
  const date = basicDate(query.get('X-Amz-Date'));
  const seconds = Number(query.get('X-Amz-Expires'));
  if (!date || !Number.isInteger(seconds) || seconds < 1) return;
  const expires = new Date(date.getTime() + seconds * 1000);
  const now = new Date();
  if (now > expires)
    throw new S3Error(403, 'AccessDenied', 'Request has expired', {
      'X-Amz-Expires': String(seconds),
      Expires: expires.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ServerTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
};

/** Refuses a request not signed with the runner's credentials (in its headers or as a presigned URL). */
const checkCaller = async (request: IncomingMessage, url: URL, body: Buffer, decoded: string) => {
  // Signature Version 2 (an `AWS key:signature` header, or AWSAccessKeyId and Signature in the query), which S3 answers
  // so in the regions that take Signature Version 4 alone ("Authenticating Requests (AWS Signature Version 4)").
  const { authorization } = request.headers;
  if (
    authorization?.startsWith('AWS ') ||
    (url.searchParams.has('AWSAccessKeyId') && url.searchParams.has('Signature'))
  )
    throw new S3Error(
      400,
      'InvalidRequest',
      "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256. (The local S3 takes Signature Version 4 alone: the SDK for JavaScript v2 signs with it given signatureVersion: 'v4'.)",
    );
  if (authorization === undefined) checkExpiry(url.searchParams);
  const checked = await checkSignature(request, url, body, 's3', {
    path: s3Encoded(decoded),
    unhashedPayloads: streamingPayloads,
    presignedPayload: 'UNSIGNED-PAYLOAD',
  });
  if ('refused' in checked) throw signatureError(checked.refused, request.headers.authorization === undefined);
};

/** The request, read and checked: its call, or the refusal to answer with. */
const callOf = async (request: IncomingMessage, body: Buffer, requestId: string): Promise<S3Call> => {
  const host = requestHost(request);
  const { path, query } = targetOf(request);
  const { bucket, key, decoded } = addressOf(host, path);
  const url = new URL(`http://local${path.startsWith('/') ? '' : '/'}${path}${query === '' ? '' : `?${query}`}`);
  // A form upload is signed in its fields, its policy checked by post.ts.
  const method = request.method ?? 'GET';
  const form =
    request.headers.authorization === undefined &&
    query === '' &&
    isFormUpload({ method, key, contentType: request.headers['content-type'] });
  if (!form) await checkCaller(request, url, body, decoded);
  return {
    method,
    bucket,
    key,
    query: new URLSearchParams(query),
    headers: request.headers,
    body,
    signing: chunkSigning(request),
    requestId,
    sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
  };
};

/** The CORS rules of the bucket a request names, if it names one that exists. */
const bucketRules = (context: S3Context, request: IncomingMessage) => {
  try {
    const { bucket } = addressOf(requestHost(request), targetOf(request).path);
    return bucket === undefined ? undefined : context.store.buckets().find((b) => b.name === bucket)?.cors;
  } catch {
    return undefined;
  }
};

const send = (response: ServerResponse, method: string, answer: S3Answer, extra: Record<string, string>) => {
  const body = answer.body ?? '';
  const empty = method === 'HEAD' || answer.status === 204 || answer.status === 304;
  const headers = { ...answer.headers, ...extra };
  if (!empty && headers['Content-Length'] === undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  response.writeHead(answer.status, headers);
  response.end(empty ? undefined : body);
};

const errorAnswer = (error: S3Error, request: IncomingMessage, requestId: string): S3Answer => ({
  status: error.status,
  headers: { 'Content-Type': 'application/xml', ...error.headers },
  body: errorDocument(error, targetOf(request).path, requestId),
});

/** The answer to one request (its CORS headers apart). */
const answer = async (
  context: S3Context,
  request: IncomingMessage,
  requestId: string,
  log: (line: string) => void,
): Promise<S3Answer> => {
  const origin = request.headers.origin;
  if (request.method === 'OPTIONS') {
    request.resume();
    const headers = preflight(
      bucketRules(context, request),
      origin,
      request.headers['access-control-request-method'],
      request.headers['access-control-request-headers'],
    );
    return { status: 200, headers };
  }
  const body = await readBody(request, bodyLimit);
  if (body === undefined)
    throw new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', {
      MaxSizeAllowed: String(bodyLimit),
    });
  // A web page's request is served only as its bucket's CORS configuration allows it (S3 answers it without the
  // CORS headers, which the browser then hides; the local S3, which any page on this machine can reach, refuses it).
  if (origin !== undefined && !corsHeaders(bucketRules(context, request), origin, request.method ?? 'GET'))
    throw new S3Error(403, 'AccessForbidden', `CORSResponse: the bucket's CORS configuration does not allow ${origin}`);
  const call = await callOf(request, body, requestId);
  const answered = route(context, call);
  if (answered.status >= 500) log(`the local S3 answered ${answered.status}`);
  return answered;
};

/** Serves the local S3 on loopback; resolves with its address. */
export const serveS3 = async (context: S3Context, log: (line: string) => void) => {
  const server = createServer(async (request, response) => {
    const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
    const ids = {
      'x-amz-request-id': requestId,
      'x-amz-id-2': createHash('sha256').update(requestId).digest('base64'),
    };
    const host = requestHost(request);
    if (!hostIsServed(host)) {
      const refusal = new S3Error(403, 'AccessDenied', hostRefusal(host ?? '', { optionServesIt: false }));
      afterBody(request, response, () =>
        send(response, request.method ?? 'GET', errorAnswer(refusal, request, requestId), ids),
      );
      return;
    }
    const origin = request.headers.origin;
    const cors =
      origin === undefined ? undefined : corsHeaders(bucketRules(context, request), origin, request.method ?? 'GET');
    try {
      const answered = await answer(context, request, requestId, log);
      send(response, request.method ?? 'GET', answered, { ...ids, ...(request.method === 'OPTIONS' ? {} : cors) });
    } catch (error) {
      if (!(error instanceof S3Error)) {
        log(
          `the local S3 failed: ${error instanceof RunnerError ? error.message : ((error as Error).stack ?? String(error))}`,
        );
      }
      const failure =
        error instanceof S3Error
          ? error
          : new S3Error(
              500,
              'InternalError',
              // The data folder's (a RunnerError: a damaged file), said as it is; anything else is a bug.
              error instanceof RunnerError ? error.message : 'We encountered an internal error. Please try again.',
            );
      if (response.headersSent) {
        response.destroy();
        return;
      }
      afterBody(request, response, () =>
        send(response, request.method ?? 'GET', errorAnswer(failure, request, requestId), { ...ids, ...cors }),
      );
    }
  });
  respondingToEveryRequest(server);
  const url = await listenOnLoopback(server);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};
