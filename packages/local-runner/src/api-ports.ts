// The port each API and function URL is served on, kept across restarts: a start given a port (`--port N`, not 0)
// and a data folder remembers, in `ports.json` there, which API had which port, and the next start gives each API
// it names the same port again while its logical id stays, so that adding an API moves no other's address. An API
// new to the folder takes the first port from N that none has; with none remembered, the first API has N, the next
// ones N+1, N+2... in the template's order.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Api } from './app/api.ts';
import { RunnerError } from './errors.ts';

/** What the data folder holds of the ports: the `--port` they were given from, and each API's, by `Stack/id`. */
interface RememberedPorts {
  port: number;
  apis: Record<string, number>;
}

const fileName = 'ports.json';
const keyOf = ({ stackName, apiId }: Pick<Api, 'stackName' | 'apiId'>) => `${stackName}/${apiId}`;

/** The ports the data folder remembers from `base`; none when it remembers another base, or nothing. */
const remembered = (dataDir: string | undefined, base: number): Record<string, number> => {
  const file = dataDir === undefined ? undefined : join(dataDir, fileName);
  if (base === 0 || file === undefined || !existsSync(file)) return {};
  let read: unknown;
  try {
    read = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    read = undefined;
  }
  const { port, apis } = (read ?? {}) as Partial<RememberedPorts>;
  const valid =
    Number.isSafeInteger(port) &&
    typeof apis === 'object' &&
    apis !== null &&
    Object.values(apis).every((value) => Number.isSafeInteger(value));
  if (!valid)
    throw new RunnerError(
      `${file} is not the runner's record of the APIs' ports ({"port": N, "apis": {"Stack/ApiId": N}}): delete it, and each API takes a port from --port again`,
    );
  return port === base ? (apis as Record<string, number>) : {};
};

/**
 * The port of each of `apis`, in their order, from `base` (`--port`; 0: each any free one), keeping the ones the
 * data folder remembers (the file's header says how).
 */
export const portsFor = (apis: Api[], base: number, dataDir: string | undefined): number[] => {
  if (base === 0) return apis.map(() => 0);
  const known = remembered(dataDir, base);
  const taken = new Set(Object.values(known));
  let next = base;
  return apis.map((api) => {
    const port = known[keyOf(api)];
    if (port !== undefined) return port;
    while (taken.has(next)) next += 1;
    taken.add(next);
    return next;
  });
};

/**
 * Writes which API has which port (`urls`: each one's address) into the data folder, beside those it remembered. A
 * folder that takes no file (a full disk) keeps the last record: said, and served all the same.
 */
export const rememberPorts = (
  apis: Api[],
  urls: string[],
  { base, dataDir, log }: { base: number; dataDir: string | undefined; log: (line: string) => void },
) => {
  if (base === 0 || dataDir === undefined) return;
  const ports: RememberedPorts = {
    port: base,
    apis: {
      ...remembered(dataDir, base),
      ...Object.fromEntries(apis.map((api, index) => [keyOf(api), Number(new URL(urls[index] ?? '').port)])),
    },
  };
  const file = join(dataDir, fileName);
  try {
    // Written whole, then renamed into place: a runner stopped halfway leaves the last record, not half of one.
    writeFileSync(`${file}.partial`, `${JSON.stringify(ports, null, 2)}\n`);
    renameSync(`${file}.partial`, file);
  } catch (error) {
    log(
      `the APIs' ports are not kept in ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): the next start may number them afresh`,
    );
  }
};

const kindNames = { rest: 'REST API', http: 'HTTP API', url: 'function URL', websocket: 'WebSocket API' } as const;

/** Why `api` cannot be served: `port` is in use; what wanted it, and what to do. */
export const portInUse = (api: Api, port: number, base: number, dataDir: string | undefined) => {
  const kept = port !== base && remembered(dataDir, base)[keyOf(api)] === port;
  return new RunnerError(
    `port ${port} is in use: the runner wanted it for the ${kindNames[api.kind]} ${api.apiId} of stack ${api.stackName}` +
      `${kept ? ` (its port since an earlier start, kept in ${join(dataDir ?? '', fileName)})` : ''}; ` +
      'stop what holds it, or choose another --port (0: any free ones)',
  );
};
