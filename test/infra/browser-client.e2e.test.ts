// A browser page on another origin, calling the API with a bearer token: Chromium (Debian's, driven by playwright-core)
// loads a page from one loopback origin and calls the local runner on another. With the stack's CORS origin set to
// the page's (`npm start -- --context corsOrigin=ORIGIN`, given to the synth), it reads a created plant (200), a
// validation error (400), a missing token's 401 with its WWW-Authenticate, and a refused scope's 403: the function's
// answers and the gateway's own. Without it, the browser refuses the page every answer. The CORS protocol is the
// Fetch standard's (https://fetch.spec.whatwg.org/#http-cors-protocol), as Chromium implements it.
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { appProjectAt, listenOnLoopback, type Runner, signDevToken, startRunner, synthesize } from 'cdk-local-runner';
import { type Browser, chromium, type Page } from 'playwright-core';
import { projectRoot } from '../../infra/project-root.ts';
import { plantStoreOptions, synthesizedCloudAssembly } from '../helpers/cloud-assembly.ts';

const chromiumPath = '/usr/bin/chromium';
const installed = existsSync(chromiumPath);
if (!installed)
  console.warn(`Skipping the browser client test: ${chromiumPath} is not installed (.ci/run installs it).`);

/** What the page saw of one call: the status, the body and the challenge, or the error fetch rejected with. */
type Seen = { status: number; body: unknown; challenge: string | null } | { refused: string };

/** The page's call to the API, run in the page: `fetch` as any web client makes it. */
const callFromPage = (page: Page, apiUrl: string, body: string, token?: string) =>
  page.evaluate(
    async ({ apiUrl, body, token }): Promise<Seen> => {
      try {
        const response = await fetch(`${apiUrl}/plants`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `Bearer ${token}` }) },
          body,
        });
        return {
          status: response.status,
          body: await response.json(),
          challenge: response.headers.get('WWW-Authenticate'),
        };
      } catch (error) {
        return { refused: String(error) };
      }
    },
    { apiUrl, body, ...(token && { token }) },
  );

(installed ? describe : describe.skip)('a page on another origin, in Chromium', () => {
  let browser: Browser;
  let pages: Server;
  let pageOrigin: string;
  const apis: Runner[] = [];

  beforeAll(async () => {
    // The page's origin: a server of its own on loopback, another port than the API's.
    pages = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>plant client</title>');
    });
    pageOrigin = await listenOnLoopback(pages, 0);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(apis.map((api) => api.close()));
    await new Promise((resolve) => pages?.close(resolve));
  });

  /** The runner serving `cloudAssemblyDir`, a page opened on the page origin, and the tokens of two scopes. */
  const serve = async (cloudAssemblyDir: string) => {
    const api = await startRunner({ ...plantStoreOptions(), cloudAssemblyDir });
    apis.push(api);
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
    const token = (scope: string) => signDevToken(api.signingKey, { sub: 'browser', scope, expiresIn: '1h' });
    return { api, page, writer: await token('plants/write'), reader: await token('plants/read') };
  };

  test('with the origin allowed: the page reads the 200, the 400, the 401 and its challenge, and the 403', async () => {
    const cloudAssemblyDir = mkdtempSync(join(tmpdir(), 'plant-store-cors-'));
    await synthesize({ ...appProjectAt(projectRoot), context: { corsOrigin: pageOrigin } }, cloudAssemblyDir);
    const { api, page, writer, reader } = await serve(cloudAssemblyDir);
    // The preflight as the browser sends it (no token): API Gateway's mock answers, 204 without content.
    const preflight = await fetch(`${api.url}/plants`, {
      method: 'OPTIONS',
      headers: {
        Origin: pageOrigin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      'access-control-allow-origin': pageOrigin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Authorization,Content-Type',
    });
    expect(preflight.headers.get('content-length')).toBeNull();

    expect(await callFromPage(page, api.url, '{"id": 1, "name": "Pilea"}', writer)).toEqual({
      status: 200,
      body: { name: 'Pilea' },
      challenge: null,
    });
    expect(await callFromPage(page, api.url, '{"id": "one", "name": "Pilea"}', writer)).toEqual({
      status: 400,
      body: { error: 400, message: expect.stringMatching(/^id: /) },
      challenge: null,
    });
    // The gateway's own answers: no token (401, before any function), and a token without plants/write (403).
    expect(await callFromPage(page, api.url, '{"id": 2, "name": "Pilea"}')).toEqual({
      status: 401,
      body: { error: 401, message: 'Unauthorized' },
      challenge: 'Bearer realm="Plant Store"',
    });
    expect(await callFromPage(page, api.url, '{"id": 3, "name": "Pilea"}', reader)).toEqual({
      status: 403,
      body: { error: 403, message: expect.stringContaining('plants/write') },
      challenge: expect.stringContaining('insufficient_scope'),
    });
  }, 120_000);

  test('without it: the browser refuses the page every answer', async () => {
    const { api, page, writer } = await serve(synthesizedCloudAssembly());
    for (const token of [writer, undefined]) {
      const seen = await callFromPage(page, api.url, '{"id": 4, "name": "Pilea"}', token);
      expect(seen).toEqual({ refused: expect.stringMatching(/Failed to fetch/) });
    }
  }, 60_000);
});
