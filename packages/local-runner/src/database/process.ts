// The local DynamoDB's own process: dynalite (the DynamoDB API on LevelDB) on a loopback port. dynalite throws the
// store's errors it does not expect (LevelDB's "No space left on device", a value it cannot decode) out of its
// callbacks, which ends whatever process hosts it: here that is this process alone, which the runner restarts, so a
// request's store error never takes the runner down (see database.ts beside it).
import dynalite from 'dynalite';
import dynaliteDb from 'dynalite/db/index.js';
import { listenOnLoopback } from '../http-server.ts';
import { prepareFailedWrites } from './failure-record.ts';
import { checkDatabaseFolder } from './folder-check.ts';
import { servingLoopbackProgramsOnly } from './loopback-only.ts';
import { withStreams } from './streams/requests.ts';
import { Streams } from './streams/streams.ts';
import { sweepExpired } from './streams/time-to-live.ts';

/** What the runner tells this process (as its argument, JSON). */
export interface DatabaseProcessOptions {
  /** The LevelDB folder; none keeps the data in memory. */
  path: string | undefined;
  /** 0 for any free port; a restart takes the port the first start had. */
  port: number;
  /** Check the folder before serving it (the first start; a restart serves what is there). */
  check: boolean;
  /** How often expired items (Time to Live) are looked for and deleted, milliseconds. */
  ttlSweepMs: number;
}

/** What this process tells the runner. */
export type DatabaseProcessMessage =
  /** `notes`: what the check repaired, for the runner's log. */
  | { type: 'ready'; port: number; notes: string[] }
  /** The folder cannot be served: the message says why. */
  | { type: 'refused'; message: string }
  /** An error dynalite did not handle: this process exits. */
  | { type: 'failed'; message: string }
  /** Something done for the runner's log (expired items deleted). */
  | { type: 'note'; message: string }
  /** Records were appended to these streams. */
  | { type: 'appended'; streamArns: string[] };

const send = (message: DatabaseProcessMessage) => process.send?.(message);
const { path, port, check, ttlSweepMs } = JSON.parse(process.argv[2] ?? '{}') as DatabaseProcessOptions;

/** Notes the log files' sizes as this process dies of an error (failure-record.ts); set once checked. */
let noteFailedWrite: () => void = () => undefined;
process.on('uncaughtException', (error) => {
  noteFailedWrite();
  send({ type: 'failed', message: `${error.name}: ${error.message}` });
  process.exit(70);
});
// The runner stops this process by message; a Ctrl-C sent to the whole process group is the runner's to handle.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
// The runner is gone (even by SIGKILL): release the data folder's lock, so the next start can open it.
process.on('disconnect', () => process.exit(0));

let notes: string[] = [];
if (path !== undefined && check) {
  try {
    notes = await checkDatabaseFolder(path);
  } catch (error) {
    send({ type: 'refused', message: (error as Error).message });
    process.exit(1);
  }
}
if (path !== undefined) noteFailedWrite = prepareFailedWrites(path);
// dynalite's store, kept as dynalite makes it, for the streams (streams/streams.ts) to wrap.
const createStore = dynaliteDb.create;
let store: DynaliteStore | undefined;
dynaliteDb.create = (options) => {
  store = createStore(options);
  return store;
};
const database = dynalite({ ...(path && { path }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
const streams = await Streams.open(store as DynaliteStore);
const server = servingLoopbackProgramsOnly(withStreams(database, streams));
// The streams written to, told the runner once per turn of the event loop (database.ts, onAppend).
const appended = new Set<string>();
streams.onAppended = (streamArn) => {
  if (appended.size === 0)
    setImmediate(() => {
      send({ type: 'appended', streamArns: [...appended] });
      appended.clear();
    });
  appended.add(streamArn);
};
// Records older than the streams' 24 hours are trimmed now and then (and never read once older).
await streams.trim();
setInterval(() => void streams.trim(), 10 * 60 * 1000).unref();
// Expired items deleted every ttlSweepMs, one sweep at a time (streams/time-to-live.ts).
let sweeping = false;
setInterval(() => {
  if (sweeping) return;
  sweeping = true;
  void sweepExpired(streams)
    .then((swept) => {
      for (const { table, items } of swept)
        send({ type: 'note', message: `${table}: ${items} expired item(s) deleted (Time to Live)` });
    })
    .finally(() => {
      sweeping = false;
    });
}, ttlSweepMs).unref();
const url = await listenOnLoopback(server, port);
send({ type: 'ready', port: Number(new URL(url).port), notes });
process.on('message', (message: unknown) => {
  // Closing the server closes LevelDB too, so every acknowledged write is on disk.
  if (message === 'close') server.close(() => process.exit(0));
});
