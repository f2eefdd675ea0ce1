// A function named on the command line (`invoke`, `--env-vars`, `--inspect`) as the CDK names it to a user: its
// construct path as `cdk` prints it (the template's `aws:cdk:path`, with or without `/Resource`) or its construct id
// when one function alone has it, besides its hashed logical id. A name several functions have is refused listing
// them; an unknown one with the closest names (src/app/function-names.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizeNamesApp } from '../fixtures/names-app.ts';
import { restProxyEvent } from '../helpers/rest-event.ts';
import { launch, launchedUntil, runnerBin, stopStarted } from '../helpers/runner-process.ts';

afterEach(stopStarted);

let app = '';
let folder = '';
let event = '';
beforeAll(() => {
  app = synthesizeNamesApp();
  folder = mkdtempSync(join(tmpdir(), 'local-runner-names-'));
  // A REST API proxy event, as the function's API would send it.
  event = join(folder, 'event.json');
  writeFileSync(event, JSON.stringify(restProxyEvent('/orders')));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** `cdk-local-runner invoke` of the fixture app, in memory, with an --env-vars file of `envVars` when given. */
const invoke = (name: string, envVars?: Record<string, Record<string, string>>) => {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.json`);
  if (envVars) writeFileSync(file, JSON.stringify(envVars));
  const run = spawnSync(
    process.execPath,
    [runnerBin, 'invoke', name, event, '--app', app, '--in-memory', ...(envVars ? ['--env-vars', file] : [])],
    { cwd: folder, encoding: 'utf8' },
  );
  return { ...run, body: run.status === 0 ? (JSON.parse(JSON.parse(run.stdout).body) as { env: string }) : undefined };
};

describe('a function named by its construct path or construct id', () => {
  test('invoke takes the path with /Resource, --env-vars the construct id', () => {
    const run = invoke('PlantStore/CreatePlantFunction/Resource', { CreatePlantFunction: { FIXTURE_VALUE: 'given' } });
    expect(run.stderr).not.toContain('failed');
    expect(run.body?.env).toBe('given');
  });

  test('invoke takes the path without /Resource, --env-vars the path with it', () => {
    const run = invoke('PlantStore/Orders/Handler', {
      'PlantStore/Orders/Handler/Resource': { FIXTURE_VALUE: 'path' },
    });
    expect(run.stderr).not.toContain('failed');
    expect(run.body?.env).toBe('path');
  });

  test('--inspect takes the construct id; the banner names the function by its logical id', async () => {
    const launched = launch(undefined, {
      args: ['--app', app, '--inspect=CreatePlantFunction', '--inspect-port', '0'],
      cwd: folder,
    });
    const output = await launchedUntil(launched, /Debugger: .* on 127\.0\.0\.1:/);
    expect(output).toMatch(/Debugger: CreatePlantFunction[0-9A-F]{8} on 127\.0\.0\.1:/);
  });
});

describe('refused', () => {
  test('a construct id two functions have, listing them', () => {
    expect(invoke('Handler').stderr).toMatch(
      /^cdk-local-runner invoke failed: Handler is the construct id of 2 functions, PlantStore\/Orders\/Handler \(OrdersHandler[0-9A-F]{8}\), PlantStore\/Invoices\/Handler \(InvoicesHandler[0-9A-F]{8}\): name one by its construct path or Stack\/id\n$/,
    );
  });

  test('an unknown name, with the closest names, by invoke, --env-vars and --inspect alike', () => {
    const closest = /did you mean PlantStore\/CreatePlantFunction \(CreatePlantFunction[0-9A-F]{8}\), or /;
    expect(invoke('CreatePlantFuntion').stderr).toMatch(
      new RegExp(`^cdk-local-runner invoke failed: no function CreatePlantFuntion in the app; ${closest.source}`),
    );
    expect(invoke('Webhook', { createplantfunction: { FIXTURE_VALUE: 'x' } }).stderr).toMatch(
      new RegExp(
        `failed: --env-vars createplantfunction: no function createplantfunction in the app; ${closest.source}`,
      ),
    );
    const start = spawnSync(
      process.execPath,
      [runnerBin, 'start', '--in-memory', '--port', '0', '--app', app, '--inspect=PlantStore/CreatePlant'],
      { cwd: folder, encoding: 'utf8' },
    );
    expect(start.stderr).toMatch(
      new RegExp(
        `failed: --inspect=PlantStore/CreatePlant: no function PlantStore/CreatePlant in the app; ${closest.source}`,
      ),
    );
  });
});
