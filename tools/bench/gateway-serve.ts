// One side of the gateway A/B (gateway-ab.ts), in a process of its own: the runner built in the folder it is given
// (a `dist` of cdk-local-runner: the working tree's, or a copy of another build's) serving the A/B's apps. It answers
// over IPC with each app's URL, a token for the REST API and what the in-process ceiling loads (ceiling-serve.ts), and
// profiles itself between 'profile' and 'profiled <file>'. Its process is the gateway, the pools and the Runtime API
// servers; the environments and the database are processes under it (gateway-ab.ts reads each one's CPU time).
// Usage (forked): node gateway-serve.ts <dist folder> <settings JSON>
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CeilingSettings } from './ceiling-serve.ts';

export interface ServeSettings {
  /** Cloud assemblies to serve, by name (each its own runner in this process). */
  assemblies: Record<string, string>;
  maxWorkers: number;
}

export type ServeMessage =
  /** `ceiling`: the REST app's createPlant, its module and its environment (its database this runner's). */
  | { type: 'ready'; urls: Record<string, string>; token: string; ceiling: CeilingSettings | undefined }
  | { type: 'profiled' };

type RunnerModule = typeof import('cdk-local-runner');

const [dist = '', settingsText = '{}'] = process.argv.slice(2);
const settings = JSON.parse(settingsText) as ServeSettings;
const runnerModule = (await import(pathToFileURL(join(dist, 'index.js')).href)) as RunnerModule;
const runners = await Promise.all(
  Object.entries(settings.assemblies).map(async ([name, cloudAssemblyDir]) => {
    const runner = await runnerModule.startRunner({
      cloudAssemblyDir,
      port: 0,
      dataDir: undefined,
      maxWorkers: settings.maxWorkers,
      log: () => undefined,
      functionLog: () => undefined,
    });
    return [name, runner] as const;
  }),
);
// Each runner has its own issuer key (in memory): the token is the REST app's.
const signing = runners.find(([name]) => name === 'rest')?.[1];
const token = signing
  ? await runnerModule.signDevToken(signing.signingKey, { sub: 'bench', scope: 'plants/write', expiresIn: '1h' })
  : '';
const createPlant = signing?.app.functions.get('CreatePlantFunction');
const ceiling =
  signing && createPlant?.code.language === 'nodejs'
    ? {
        modulePath: createPlant.code.modulePath,
        env: runnerModule.localVariables(
          createPlant,
          signing.app,
          { identity: signing.signingKey, jwksUri: '' },
          { database: signing.databaseEndpoint },
        ),
      }
    : undefined;
const send = (message: ServeMessage) => process.send?.(message);
send({ type: 'ready', urls: Object.fromEntries(runners.map(([name, runner]) => [name, runner.url])), token, ceiling });
// A CPU profile of what comes between 'profile' and 'profiled <file>' (V8's profiler through node:inspector).
const session = new Session();
process.on('message', async (message: string) => {
  if (message === 'profile') {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    return send({ type: 'profiled' });
  }
  if (message.startsWith('profiled ')) {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(message.slice('profiled '.length), JSON.stringify(profile));
    return send({ type: 'profiled' });
  }
  await Promise.all(runners.map(([, runner]) => runner.close()));
  process.exit(0);
});
