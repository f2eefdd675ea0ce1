// One side of the gateway A/B (gateway-ab.ts), in a process of its own: the runner built in the folder it is given
// (a `dist` of cdk-local-runner: the working tree's, or a copy of another build's) serving the A/B's apps. It answers
// over IPC with each app's URL and a token for the REST API, then with its own CPU time (process.cpuUsage) whenever it
// is asked (and profiles itself between 'profile' and 'profiled <file>'): the runner's process is the gateway, the pools and the Runtime API servers; the environments and the
// database are processes of their own, so its CPU time per request is the gateway's own time per request.
// Usage (forked): node gateway-serve.ts <dist folder> <settings JSON>
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ServeSettings {
  /** Cloud assemblies to serve, by name (each its own runner in this process). */
  assemblies: Record<string, string>;
  maxWorkers: number;
}

export type ServeMessage =
  | { type: 'ready'; urls: Record<string, string>; token: string }
  /** CPU time so far, µs: user and system together, and system alone. */
  | { type: 'cpu'; micros: number; systemMicros: number }
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
const send = (message: ServeMessage) => process.send?.(message);
send({ type: 'ready', urls: Object.fromEntries(runners.map(([name, runner]) => [name, runner.url])), token });
// A CPU profile of what comes between 'profile' and 'profiled <file>' (V8's profiler through node:inspector).
const session = new Session();
process.on('message', async (message: string) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    return send({ type: 'cpu', micros: user + system, systemMicros: system });
  }
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
