// An API's several stages, each serving the template's routes under its name (the path's first segment) with its own
// variables, as API Gateway serves a stage at `https://<api>.execute-api.<region>.amazonaws.com/<stage>` ("Setting up
// a stage for a REST API"; "Working with stages for HTTP APIs": `$default` at the base URL).
import { describe, expect, test } from '@jest/globals';
import { synthesizeStagedApp } from '../fixtures/staged-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeStagedApp);
const get = async (apiId: string, path: string) => {
  const response = await fetch(`${served.urlOf(apiId)}${path}`);
  const text = await response.text();
  return {
    status: response.status,
    text,
    event: () => (JSON.parse(text) as { event: { requestContext: { stage: string }; stageVariables: unknown } }).event,
  };
};

describe('a REST API with two stages', () => {
  test.each([
    ['/prod/echo', 'prod', 'gold'],
    ['/dev/echo', 'dev', 'free'],
    // The path may leave the stage out: the first stage's.
    ['/echo', 'prod', 'gold'],
  ])('GET %s: the stage %s, its variables', async (path, stage, tier) => {
    const response = await get('Rest', path);
    expect(response.status).toBe(200);
    expect(response.event()).toMatchObject({
      path: '/echo',
      stageVariables: { tier },
      requestContext: { stage, path: `/${stage}/echo` },
    });
  });
});

describe('an HTTP API with two named stages', () => {
  test.each([
    ['/prod/items', 'prod', 'gold'],
    ['/dev/items', 'dev', 'free'],
  ])('GET %s: the stage %s, its variables', async (path, stage, tier) => {
    const response = await get('Http', path);
    expect(response.status).toBe(200);
    expect(response.event()).toMatchObject({ rawPath: path, stageVariables: { tier }, requestContext: { stage } });
  });

  test('a path outside every stage: 404, as no $default stage serves it', async () => {
    expect(await get('Http', '/items')).toMatchObject({ status: 404, text: JSON.stringify({ message: 'Not Found' }) });
  });
});
