// The start command's banner names what it serves: each API at its address with its stack, when several stacks are
// served, its stages, when it has several, its API keys, and the local services' address when the app keeps
// parameters or secrets.
import { afterEach, expect, test } from '@jest/globals';
import { localKeyValue } from '../../src/app/api-keys.ts';
import { synthesizeParametersApp } from '../fixtures/parameters-app.ts';
import { synthesizeStacksApp } from '../fixtures/stacks-app.ts';
import { apiKeys, synthesizeStagedApp } from '../fixtures/staged-app.ts';
import { launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

afterEach(stopStarted);

const servedBanner = (app: string) => launchedUntil(launch(undefined, { args: ['--app', app] }), /Database: /);

test("several stacks: the banner names them, and each API's stack (the stacks fixture)", async () => {
  const output = await servedBanner(synthesizeStacksApp());
  expect(output).toMatch(/\(stacks Gateway, Edge, PerOperation, Monolith, Counter\) is serving at/);
  for (const stack of ['Gateway', 'Edge', 'PerOperation', 'Monolith', 'Counter'])
    expect(output).toMatch(new RegExp(`REST API \\w+ of ${stack} at http://127\\.0\\.0\\.1:\\d+:`));
  // No parameter or secret in the app: no word of the local services.
  expect(output).not.toContain('SSM Parameter Store');
}, 60_000);

test('an API with several stages and API keys: the banner names the stages and gives the keys', async () => {
  const output = await servedBanner(synthesizeStagedApp());
  expect(output).toContain(`  API key ProdKey for prod: x-api-key: ${apiKeys.prod}`);
  expect(output).toContain(
    `  API key GeneratedKey (AWS generates its value; this is the local one) for prod: x-api-key: ${localKeyValue('GeneratedKey')}`,
  );
  expect(output).not.toContain('DisabledKey');
  expect(output).toContain("  stages prod, dev: the path's first segment chooses");
  expect(output).toContain("  stages dev, prod: the path's first segment chooses");
}, 60_000);

test("an app with SSM parameters and secrets: the banner gives each local service's address", async () => {
  const output = await servedBanner(await synthesizeParametersApp());
  expect(output).toMatch(
    /\nSSM Parameter Store: http:\/\/127\.0\.0\.1:\d+, Secrets Manager: http:\/\/127\.0\.0\.1:\d+ \(the runner's credentials, local\/local\)\n/,
  );
  // Lambda's Invoke API, on a port of its own (every app's).
  expect(output).toMatch(
    /\nLambda: http:\/\/127\.0\.0\.1:\d+ \(Invoke, by name, ARN or partial ARN; the runner's credentials, local\/local\)\n/,
  );
}, 60_000);
