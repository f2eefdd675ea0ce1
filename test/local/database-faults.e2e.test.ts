// The local database failing while the runner serves: its process is contained (a full disk, a crash), the runner
// answers 503 with Retry-After meanwhile, keeps serving, logs the cause, and recovers — with every acknowledged plant.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Runner, signDevToken, startRunner } from 'cdk-local-runner';
import { recordedLog } from 'test-support/log-lines';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { closeGates, startDatabaseGate } from '../helpers/database-gate.ts';
import { createPlantRequest, responseContractViolations } from '../helpers/independent-contract.ts';
import { postPlant } from '../helpers/post-plant.ts';

/** The Plant Store served from `dataDir`, with a log whose lines a test can wait for. */
const serve = async (dataDir: string, createPlantEnvironment: Record<string, string> = {}) => {
  const { lines, log, next, seen } = recordedLog();
  const api = await startRunner(
    plantStoreOptions({ dataDir, maxWorkers: 2, envVars: { CreatePlantFunction: createPlantEnvironment }, log }),
  );
  const token = await signDevToken(api.signingKey, { sub: 'faults', scope: 'plants/write', expiresIn: '1h' });
  const create = async (id: number, name: string) => {
    const response = await postPlant(api.url, token, { id, name });
    expect(await responseContractViolations(response, createPlantRequest)).toEqual([]);
    return response;
  };
  /** Resolves once the database serves again after its last failure (at once when it already does). */
  const databaseBack = () => {
    const lastFailure = lines.findLastIndex((line) => line.startsWith('database failed'));
    const lastBack = lines.lastIndexOf('database is back');
    return lastBack > lastFailure ? Promise.resolve() : next(/^database is back$/).then(() => undefined);
  };
  /**
   * A create once the database is back, as a client retries after Retry-After: a database restarted while the disk
   * was still full is "back" but refuses its first write, fails and restarts once more (one 503, then the next
   * "database is back", waited for from before the request).
   */
  const createOnceBack = async (id: number, name: string) => {
    for (let attempt = 1; ; attempt += 1) {
      await databaseBack();
      const backAgain = next(/^database is back$/);
      const response = await create(id, name);
      if (response.status !== 503 || attempt === 3) return response;
      await expectUnavailable(response);
      await backAgain;
    }
  };
  return { api, create, createOnceBack, logged: seen, databaseBack };
};

const running: Runner[] = [];
afterAll(async () => {
  await closeGates();
  for (const api of running) await api.close();
});

const expectUnavailable = async (response: Response) => {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await response.json()).toMatchObject({ error: 503 });
};

test('a database process that dies is restarted; the runner keeps serving and loses no acknowledged plant', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-db-crash-'));
  const { api, create, logged, databaseBack } = await serve(dataDir);
  running.push(api);
  expect((await create(1, 'Before')).status).toBe(200);

  // The database process is the one started for this data folder (process.js: the runner's build, dist/).
  const pid = spawnSync('pgrep', ['-f', `database/process\\.js.*${dataDir}`], { encoding: 'utf8' }).stdout.trim();
  expect(pid).toMatch(/^\d+$/);
  process.kill(Number(pid), 'SIGKILL');
  await logged(/^database failed \(it exited\)/);

  await databaseBack();

  expect((await create(2, 'After')).status).toBe(200);
  expect((await create(1, 'Changed')).status).toBe(409); // the plant acknowledged before is there
}, 60_000);

test('a database that refuses connections, then one that never answers: 503 with Retry-After, then normal answers', async () => {
  // createPlant reaches the runner's database through a gate the test opens, holds, or shuts (--env-vars).
  const gate = await startDatabaseGate();
  const { api, create } = await serve(mkdtempSync(join(tmpdir(), 'plant-store-outage-')), {
    AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint,
  });
  running.push(api);
  gate.forwardTo(api.databaseEndpoint);
  gate.open();
  expect((await create(1, 'Before')).status).toBe(200);

  await gate.refuse();
  await expectUnavailable(await create(2, 'While refused'));
  await gate.listen();
  expect((await create(2, 'Once back')).status).toBe(200);

  gate.hold();
  // Its attempts time out (2 s each, three of them) within the function's deadline: 503, never Lambda's cut-off.
  await expectUnavailable(await create(3, 'While hanging'));
  gate.open();
  expect((await create(3, 'While hanging')).status).toBe(200);
  expect((await create(1, 'Changed')).status).toBe(409);
  await gate.close();
}, 60_000);

/**
 * Whether a tmpfs can be mounted: as root with CAP_SYS_ADMIN (capabilities(7): mount(2) needs it), as CI and the
 * developers' machines run; else the full-disk tests are skipped. Read from /proc/self/status, with nothing to undo:
 * the mount is made in the hook of the tests that use it, so a run that selects other tests (-t) mounts nothing.
 */
const canMount = (() => {
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(
    existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '',
  );
  const capSysAdmin = 21n;
  return process.getuid?.() === 0 && effective !== null && ((BigInt(`0x${effective[1]}`) >> capSysAdmin) & 1n) === 1n;
})();
if (!canMount) console.warn('Skipping the full-disk tests: mounting a tmpfs needs root with CAP_SYS_ADMIN.');

/** Fills `disk` with the file `name` to its last byte; returns the file's path. */
const fillDisk = (disk: string, name: string) => {
  const filler = join(disk, name);
  for (const chunk of [64 * 1024, 4 * 1024, 1]) {
    try {
      for (;;) appendFileSync(filler, Buffer.alloc(chunk));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
  }
  return filler;
};

describe('a full disk', () => {
  /** A small tmpfs to fill, mounted for these tests only. */
  let smallDisk = '';
  let mounted = false;
  const onSmallDisk: Runner[] = [];
  beforeAll(() => {
    smallDisk = mkdtempSync(join(tmpdir(), 'plant-store-full-disk-'));
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', smallDisk], { encoding: 'utf8' });
    mounted = mount.status === 0;
    if (!mounted) throw new Error(`cannot mount a tmpfs at ${smallDisk}: ${mount.stderr || mount.error?.message}`);
  });
  // The runners on it stop first: the disk is theirs until then.
  afterAll(async () => {
    for (const api of onSmallDisk) await api.close();
    if (mounted) spawnSync('umount', ['-l', smallDisk]);
  });

  (canMount ? test : test.skip)(
    'answers 503 with Retry-After and logs the cause; the runner keeps serving and recovers when space returns',
    async () => {
      const { api, create, createOnceBack, logged } = await serve(smallDisk);
      onSmallDisk.push(api);
      const acknowledged: number[] = [];
      expect((await create(1, 'Before the disk filled')).status).toBe(200);
      acknowledged.push(1);

      const filler = fillDisk(smallDisk, 'filler');
      // LevelDB may still fill the page its log has begun: create until the first refusal (each 200 is kept below).
      let refused: Response | undefined;
      for (let id = 100; id < 1_100 && !refused; id += 1) {
        const response = await create(id, 'While the disk fills');
        if (response.status === 200) acknowledged.push(id);
        else refused = response;
      }
      if (!refused) throw new Error('every create succeeded on a full disk');
      await expectUnavailable(refused);
      await logged(/^database failed \(.*No space left on device/);
      await expectUnavailable(await create(2, 'Still full')); // answered, not dropped: the runner is up

      rmSync(filler);
      expect((await createOnceBack(2, 'Once there is space')).status).toBe(200);
      for (const id of acknowledged) expect((await create(id, 'Changed')).status).toBe(409);
    },
    90_000,
  );

  (canMount ? test : test.skip)(
    'stopped while full, started again once there is space: every plant answered 200 is there',
    async () => {
      const dataDir = join(smallDisk, 'stopped-while-full');
      const first = await serve(dataDir);
      const acknowledged = new Map<number, string>();
      const filler = fillDisk(smallDisk, 'filler-2');
      // 8 creates at a time, as clients do, until the database fails for want of space; then a few more rounds.
      let nextId = 1;
      let failedRounds = 0;
      while (failedRounds < 3 && nextId < 20_000) {
        const round = Array.from({ length: 8 }, () => nextId++);
        const statuses = await Promise.all(
          round.map(async (id) => {
            const name = `plant ${id}`;
            const response = await first.create(id, name);
            if (response.status === 200) acknowledged.set(id, name);
            return response.status;
          }),
        );
        if (statuses.some((status) => status === 503)) failedRounds += 1;
      }
      expect(failedRounds).toBe(3);
      await first.logged(/^database failed \(.*No space left on device/);
      await first.api.close();

      rmSync(filler);
      const second = await serve(dataDir);
      onSmallDisk.push(second.api);
      // The write that failed left the log cut off; the start cut that away, and only that.
      await second.logged(/^database folder: \d+\.log: cut away the last \d+ bytes, a write that failed/);

      expect(acknowledged.size).toBeGreaterThan(0);
      for (const [id, name] of acknowledged) expect((await second.create(id, name)).status).toBe(200);
      for (const id of acknowledged.keys()) expect((await second.create(id, 'Changed')).status).toBe(409);
    },
    120_000,
  );
});
