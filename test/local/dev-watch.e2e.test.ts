// `npm run dev` (npm start --watch) on a copy of the project: a changed function is served without a restart, with
// the stored plants kept; a change that does not synthesize leaves the previous version serving, with the error
// printed. (Requests in flight during the swap: test/local/reload.e2e.test.ts, where the swap's moment is known.)
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from '@jest/globals';
import { projectRoot } from '../../infra/project-root.ts';
import { newDataDir, start, stopStarted, tokenOf } from '../helpers/npm-start.ts';
import { postPlant } from '../helpers/post-plant.ts';

/** What `cdk synth` and the runner read, copied; node_modules linked. */
const projectCopy = () => {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-dev-project-'));
  for (const entry of [
    'functions',
    'infra',
    'openapi.yaml',
    'cdk.json',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'local-runner.json',
  ]) {
    cpSync(join(projectRoot, entry), join(root, entry), { recursive: true });
  }
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
};

afterAll(stopStarted);

test('a changed function is served without a restart, with the plants kept; a broken change is not served', async () => {
  const root = projectCopy();
  const server = await start(newDataDir(), { root, args: ['--watch'] });
  const create = (plant: { id: number; name: string }) => postPlant(server.url, tokenOf(server), plant);
  await server.printed(
    /watching infra\/\*\*, functions\/\*\*, openapi\.yaml for changes \(cdk\.json's watch\.include\)/,
  );
  expect((await create({ id: 1, name: 'Aloe' })).status).toBe(200);

  const source = join(root, 'functions/create-plant/create-plant.ts');
  writeFileSync(
    source,
    readFileSync(source, 'utf8').replace('already exists with a different name or tag', 'is taken by another plant'),
  );
  await server.printed(/serving the new version/);

  const conflict = await create({ id: 1, name: 'Echeveria' });
  expect(conflict.status).toBe(409);
  expect(await conflict.json()).toEqual({ error: 409, message: 'A plant with id 1 is taken by another plant' });
  // The database was kept: the plant stored before the change is there.
  expect((await create({ id: 1, name: 'Aloe' })).status).toBe(200);

  // A change that does not synthesize: the error is printed, the previous version goes on serving.
  writeFileSync(source, `${readFileSync(source, 'utf8')}\nexport const broken = ;\n`);
  await server.printed(/the change does not synthesize; still serving the previous version/);
  const stillServed = await create({ id: 1, name: 'Echeveria' });
  expect(await stillServed.json()).toEqual({ error: 409, message: 'A plant with id 1 is taken by another plant' });
  expect(server.output()).toMatch(/create-plant\.ts/);
}, 180_000);
