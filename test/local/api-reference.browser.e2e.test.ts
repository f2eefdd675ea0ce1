// The API reference of `npm start` in a real browser: Debian's chromium, driven by playwright-core. The page renders
// the operation from openapi.yaml, takes the development token under "Authorize", and "Try it out" creates a plant.
// Nothing it loads may leave loopback. A screenshot is left in test/artifacts/.
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium } from 'playwright-core';
import { newDataDir, start, stopStarted, tokenOf } from '../helpers/npm-start.ts';
import { postPlant } from '../helpers/post-plant.ts';

const chromiumPath = '/usr/bin/chromium';
const artifacts = new URL('../artifacts/', import.meta.url).pathname;
const installed = existsSync(chromiumPath);
if (!installed) {
  console.warn(
    `Skipping the browser test: ${chromiumPath} is not installed. Install Debian's chromium (apt-get install chromium), ` +
      'as .ci/run does.',
  );
}

afterEach(stopStarted);

(installed ? describe : describe.skip)('GET /docs in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      // Chromium's own connections (updates, sync, QUIC probes) would be refused by a closed network.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('renders createPlant from openapi.yaml, and Try it out (with the pasted token) creates a plant', async () => {
    const server = await start(newDataDir());
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const offLoopback: string[] = [];
    await page.route('**/*', (route) => {
      const { hostname, protocol } = new URL(route.request().url());
      if (protocol === 'data:' || hostname === '127.0.0.1') return route.continue();
      offLoopback.push(route.request().url());
      return route.abort();
    });

    await page.goto(`${server.url}/docs`);
    const operation = page.locator('.opblock-post', { hasText: '/plants' });
    await operation.waitFor();
    expect(await operation.locator('.opblock-summary-path').innerText()).toBe('/plants');
    expect(await operation.locator('.opblock-summary-method').innerText()).toBe('POST');
    // The description names `GET /openapi.yaml`; the page's only link to a document is that one.
    expect(await page.locator('.info .description').innerText()).toContain('GET /openapi.yaml');
    const documentLinks = await page
      .locator('a[href*="openapi"], a[href$=".json"], a[href$=".yaml"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(documentLinks).toEqual(['/openapi.yaml']);

    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.modal-ux input[type=text], .modal-ux input:not([type])').first().fill(tokenOf(server));
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    await operation.locator('.opblock-summary').click();
    const id = Date.now();
    await operation.locator('textarea.body-param__text').fill(JSON.stringify({ id, name: 'Calathea', tag: 'prayer' }));
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor();

    expect((await status.innerText()).trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .response .response-col_description').innerText()).toContain(
      '"Calathea"',
    );
    // The page's request reached the API: the plant is stored (the same id with another name is a conflict).
    const conflict = await postPlant(server.url, tokenOf(server), { id, name: 'Maranta' });
    expect(conflict.status).toBe(409);
    expect(offLoopback).toEqual([]);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}api-reference.png`, fullPage: true });
  }, 120_000);

  test('GET /openapi.yaml serves the document as written, without a token', async () => {
    const server = await start(newDataDir());

    const answer = await fetch(`${server.url}/openapi.yaml`);

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/yaml/);
    const { readFileSync } = await import('node:fs');
    expect(await answer.text()).toBe(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  }, 90_000);
});
