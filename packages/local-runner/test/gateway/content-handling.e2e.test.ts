// API Gateway's content type conversions through the runner, under binary media types of `*/*` (the product's):
// "Content type conversions in API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings-workflow.html). A CORS
// preflight's mock integration fails with 500 unless it converts to text, as it does on AWS
// (aws/serverless-application-model issue 553, serverless/serverless issues 7505 and 10254, aws/chalice issue 1310);
// a proxy integration's function gets the body base64-encoded, and a binary answer reaches a client that accepts it.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import { type Runner, startRunner } from '../../src/runner.ts';
import { preflightOrigin, synthesizeBinaryMediaApp } from '../fixtures/binary-media-app.ts';

let api: Runner;
let starting: Promise<Runner> | undefined;
let cloudAssemblyDir: string;
const { lines, log } = recordedLog();

beforeAll(async () => {
  cloudAssemblyDir = synthesizeBinaryMediaApp();
  starting = startRunner({ cloudAssemblyDir, port: 0, dataDir: undefined, maxWorkers: 1, log });
  api = await starting;
}, 90_000);

// Also after a beforeAll that timed out while the runner started: that start is awaited and closed, so that no runner
// (its database process, its servers) outlives the file.
afterAll(async () => {
  await (await starting?.catch(() => undefined))?.close();
  rmSync(cloudAssemblyDir, { recursive: true, force: true });
}, 90_000);

// A preflight as Chromium sends it: no Content-Type, no body, an Accept of any media type.
const preflight = (path: string) =>
  fetch(`${api.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: preflightOrigin, 'Access-Control-Request-Method': 'GET', Accept: '*/*' },
  });

test("a preflight whose mock integration does not convert to text: API Gateway's 500, nothing allowed", async () => {
  const response = await preflight('/unconverted');
  expect(response.status).toBe(500);
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  expect(await response.json()).toEqual({ message: 'Internal server error' });
  expect(lines.some((line) => /^OPTIONS \/unconverted 500 .*Unable to transform request/.test(line))).toBe(true);
});

test('the same preflight converting to text: 204 with the CORS headers, whatever the request says it carries', async () => {
  for (const extra of [{}, { 'Content-Type': 'application/octet-stream' }]) {
    const response = await fetch(`${api.url}/converted`, {
      method: 'OPTIONS',
      headers: { Origin: preflightOrigin, 'Access-Control-Request-Method': 'GET', Accept: '*/*', ...extra },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(preflightOrigin);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET');
  }
});

test('a proxy integration gets every body base64-encoded, byte for byte, with or without a Content-Type', async () => {
  const bytes = Buffer.from([0x68, 0x69, 0xff]);
  for (const headers of [{ 'Content-Type': 'text/plain' }, {}]) {
    const response = await fetch(`${api.url}/echo`, { method: 'POST', headers, body: bytes });
    const { event } = (await response.json()) as { event: { body: string; isBase64Encoded: boolean } };
    expect([event.isBase64Encoded, Buffer.from(event.body, 'base64')]).toEqual([true, bytes]);
  }
});

test('a base64 proxy result reaches a client that accepts its media type as the bytes', async () => {
  const response = await fetch(`${api.url}/binary`, { headers: { Accept: 'image/png' } });
  expect(response.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
});
