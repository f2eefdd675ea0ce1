// The user's package cache and the npm registry as the tests of the runtime's SDK and of Powertools' layers need them:
// a cache folder of the test's own, and a registry nothing answers at (a closed loopback port), so that an install
// fails at once and offline, as on a machine without a network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { hold, portOf, release } from './free-ports.ts';

/** A cache folder of the test's own (`prefix`), made in beforeAll (with `prepare`) and removed in afterAll. */
export const cacheBeforeAll = (prefix: string, prepare: (cache: string) => void = () => undefined) => {
  let cache = '';
  beforeAll(() => {
    cache = mkdtempSync(join(tmpdir(), prefix));
    prepare(cache);
  });
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  return () => cache;
};

/** npm_config_registry at a closed loopback port for the tests of a describe, then as it was. */
export const unreachableRegistryBeforeAll = () => {
  let registry: string | undefined;
  beforeAll(async () => {
    const closed = await hold(0);
    const port = portOf(closed as NonNullable<typeof closed>);
    await release(closed);
    registry = process.env.npm_config_registry;
    process.env.npm_config_registry = `http://127.0.0.1:${port}/`;
  });
  afterAll(() => {
    process.env.npm_config_registry = registry;
  });
};
