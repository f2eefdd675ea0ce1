// A presigned PUT and GET from a web page in headless Chromium (Debian's, driven by playwright-core), the page served
// from another loopback origin than the S3's: the browser sends a preflight, which the bucket's CORS configuration
// answers as S3 evaluates it ("Using cross-origin resource sharing (CORS)", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html), then the PUT, signed in its query string
// ("Authenticating Requests: Using Query Parameters (AWS Signature Version 4)",
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html; "Uploading objects with presigned
// URLs", https://docs.aws.amazon.com/AmazonS3/latest/userguide/PresignedUrlUploadObject.html). A page of an origin the
// rules do not name is refused, and stores nothing.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium } from 'playwright-core';
import { startS3 } from '../helpers/s3-services.ts';

const chromiumPath = '/usr/bin/chromium';
const installed = existsSync(chromiumPath);
if (!installed)
  console.warn(
    `Skipping the S3 browser test: ${chromiumPath} is not installed (apt-get install chromium, as .ci/run does).`,
  );

/** A server of an empty page, on its own loopback port: the page's origin is `http://localhost:<port>`. */
const pageServer = async () => {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>uploader</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
};

const closed = (server: Server | undefined) =>
  new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

(installed ? describe : describe.skip)('a presigned PUT from a page in chromium', () => {
  let browser: Browser;
  let s3: Awaited<ReturnType<typeof startS3>>;
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  beforeAll(async () => {
    allowed = await pageServer();
    other = await pageServer();
    s3 = await startS3([
      {
        source: 'App/Uploads',
        name: 'uploads',
        cors: [
          {
            allowedOrigins: [allowed.origin],
            allowedMethods: ['PUT', 'GET'],
            allowedHeaders: ['*'],
            exposeHeaders: ['ETag'],
            maxAgeSeconds: 60,
          },
        ],
      },
    ]);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s3?.close();
    await closed(allowed?.server);
    await closed(other?.server);
  });

  /** What a page of `origin` gets putting `text` to a presigned URL of `key`, then getting it back from another. */
  const uploadFrom = async (origin: string, key: string, text: string) => {
    const put = await getSignedUrl(s3.client, new PutObjectCommand({ Bucket: 'uploads', Key: key }), {
      expiresIn: 300,
    });
    const get = await getSignedUrl(s3.client, new GetObjectCommand({ Bucket: 'uploads', Key: key }), {
      expiresIn: 300,
    });
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ put, get, text }) => {
          try {
            const stored = await fetch(put, { method: 'PUT', body: text, headers: { 'Content-Type': 'text/plain' } });
            const read = await fetch(get);
            return { put: stored.status, eTag: stored.headers.get('ETag'), get: read.status, text: await read.text() };
          } catch (error) {
            return { failed: String(error) };
          }
        },
        { put, get, text },
      );
    } finally {
      await page.close();
    }
  };

  test('a page of an origin the CORS rules allow PUTs and GETs with presigned URLs', async () => {
    const answer = await uploadFrom(allowed.origin, 'from the browser/hello.txt', 'hello from chromium');
    expect(answer).toEqual({
      put: 200,
      eTag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      get: 200,
      text: 'hello from chromium',
    });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: 'uploads', Key: 'from the browser/hello.txt' }));
    expect([head.ContentLength, head.ContentType]).toEqual([19, 'text/plain']);
  });

  test('a page of another origin is refused at the preflight, and nothing is stored', async () => {
    const answer = await uploadFrom(other.origin, 'refused.txt', 'not stored');
    expect(answer).toEqual({ failed: expect.stringContaining('Failed to fetch') });
    const missing = await s3.client
      .send(new HeadObjectCommand({ Bucket: 'uploads', Key: 'refused.txt' }))
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });
});
