// What a function sees around its event when the runner runs on a host unlike Lambda's: the runner in a process of
// its own whose time zone is New York (as a developer's machine may be), serving the fixture app. On Lambda the clock
// is UTC ("Defined runtime environment variables", TZ: https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { projectRoot } from '../../../infra/project-root.ts';
import { spawnInGroup, stopGroups } from '../../helpers/process-group.ts';
import { synthesizeFixtureApp } from './fixtures/fixture-app.ts';

let url: string;
let hostOffsetMinutes: number;

beforeAll(async () => {
  // A script file, not `node -e`: the runner forks its database with its own execArgv, which would carry `-e`.
  const script = join(mkdtempSync(join(tmpdir(), 'plant-store-tz-')), 'serve.mts');
  writeFileSync(
    script,
    `console.log('OFFSET ' + new Date(0).getTimezoneOffset());
    const { startLocalApi } = await import(${JSON.stringify(join(projectRoot, 'infra/local/local-api.ts'))});
    const api = await startLocalApi({ cloudAssemblyDir: process.env.FIXTURE_APP_DIR, port: 0, dataDir: undefined,
      maxWorkers: 1, log: () => undefined, functionLog: () => undefined });
    console.log('LISTENING ' + api.url);`,
  );
  const child = spawnInGroup(process.execPath, [script], {
    cwd: projectRoot,
    env: { ...process.env, TZ: 'America/New_York', FIXTURE_APP_DIR: synthesizeFixtureApp() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk;
  });
  for await (const line of createInterface({ input: child.stdout ?? process.stdin })) {
    const [word, value = ''] = line.split(' ');
    if (word === 'OFFSET') hostOffsetMinutes = Number(value);
    if (word === 'LISTENING') {
      url = value;
      break;
    }
  }
  if (!url) throw new Error(`the runner did not start: ${errors}`);
}, 90_000);

afterAll(stopGroups);

test("a function's clock is UTC, whatever the host's time zone", async () => {
  // The host is New York: 300 minutes behind UTC on 1 January 1970.
  expect(hostOffsetMinutes).toBe(300);
  const { clock } = (await (await fetch(`${url}/echo`)).json()) as { clock: Record<string, unknown> };
  expect(clock).toEqual({ offsetMinutes: 0, zone: 'UTC', tz: 'UTC' });
});
