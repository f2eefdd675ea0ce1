// Spare runtime processes, so that a cold start does not pay for starting one: for each way a runtime is started
// (its command line: for Node.js the heap sized from the function's memory; and the variables it reads as it starts),
// one process is kept ready, started with nothing of any function loaded. A cold start takes it, hands it the
// function's environment (its variables, exactly; its folder; its settings: runtime.mjs and runtime.py read them
// before anything else), and another is started in its place. The function's code is loaded only then, once, as Lambda's init loads
// it. What Node reads only as it starts cannot be handed over: such a variable is part of the spare's start (a spare
// started with the same), or, where it names something a spare could not have the same (a file relative to the
// function's folder, an inspector's port), the environment is a fresh process as before: see `spareStartOf`.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { killGroup, spawnInOwnGroup } from './own-group.ts';

/** How a runtime's process is started (bootstrap.ts, bootstrapOf): its last argument is its settings, as JSON. */
export interface RuntimeStart {
  command: string;
  args: string[];
  /** The function's variables (its environment's, AWS_LAMBDA_RUNTIME_API aside). */
  variables: Record<string, string>;
}

/** What a spare is handed at a cold start: what runtime.mjs would have had from its start. */
export interface Handover {
  env: Record<string, string>;
  cwd: string;
  settings: string;
}

/**
 * The variables Node reads as it starts (its options, its locale, its time zone, OpenSSL's configuration, libuv's
 * thread pool), which a spare must have been started with. NODE_PATH is read again at the handover (runtime.mjs).
 */
const nodeReadsAtStart = /^(?:NODE_(?!PATH$)\w*|UV_\w+|OPENSSL_\w+|SSL_CERT_\w+|LANG|LANGUAGE|LC_\w+|TZ)$/;

/**
 * The variables Python reads as it starts (its PYTHON* settings, the locale its standard streams take, HOME for the
 * user's site folder, PATH by which `python3` finds itself); PYTHONPATH is put in sys.path at the handover (runtime.py).
 */
const pythonReadsAtStart = /^(?:PYTHON(?!PATH$)\w*|OPENSSL_\w+|SSL_CERT_\w+|LANG|LANGUAGE|LC_\w+|TZ|HOME|PATH)$/;

/**
 * NODE_OPTIONS a spare can be started with: flags alone (`--enable-source-maps`, which NodejsFunction sets), none
 * with a value (`--require ./x`, `--import=x`: a file that may be relative to the function's folder, where a spare
 * was not started), no inspector (a port a spare would hold before the function needs it).
 */
const spareOptions = (options: string) =>
  options
    .split(/\s+/)
    .filter(Boolean)
    .every((flag) => /^--[a-z][a-z0-9-]*$/.test(flag) && !/^--(?:inspect|debug)/.test(flag));

/**
 * The start of a spare that can serve `start`, by its key; undefined when none can (a fresh process then starts, as
 * before): NODE_OPTIONS a spare cannot be started with, and AWS_LAMBDA_EXEC_WRAPPER (a script that would start the
 * runtime itself).
 */
export const spareStartOf = (start: RuntimeStart, language: 'nodejs' | 'python') => {
  const { NODE_OPTIONS: options = '', AWS_LAMBDA_EXEC_WRAPPER: wrapper } = start.variables;
  if (wrapper !== undefined || (language === 'nodejs' && !spareOptions(options))) return undefined;
  const readAtStart = language === 'nodejs' ? nodeReadsAtStart : pythonReadsAtStart;
  const env = Object.fromEntries(Object.entries(start.variables).filter(([name]) => readAtStart.test(name)));
  const args = [...start.args.slice(0, -1), '--spare'];
  return { key: JSON.stringify([start.command, args, env]), command: start.command, args, env };
};

/** One spare process ready for each start asked for (`keep`), replaced as it is taken. */
export class Spares {
  readonly #ready = new Map<string, ChildProcess>();
  /** Each spare's start: settled once it waits for a function (or ended). */
  readonly #started = new Set<Promise<void>>();
  #closed = false;

  /** Resolves once every spare started so far waits for a function (or has ended). */
  async ready() {
    await Promise.all(this.#started);
  }

  /** A spare for `start` from now on (none where `spareStartOf` refuses). */
  keep(start: RuntimeStart, language: 'nodejs' | 'python') {
    const spare = spareStartOf(start, language);
    if (spare && !this.#ready.has(spare.key) && !this.#closed) this.#ready.set(spare.key, this.#spawn(spare));
  }

  /**
   * The spare ready for `start`, handed `handover`, another started in its place; undefined when there is none (or it
   * ended): the caller starts a fresh process, and the next cold start finds the new spare.
   */
  take(start: RuntimeStart, language: 'nodejs' | 'python', handover: Handover): ChildProcess | undefined {
    const spare = spareStartOf(start, language);
    if (!spare || this.#closed) return undefined;
    const child = this.#ready.get(spare.key);
    this.#ready.set(spare.key, this.#spawn(spare));
    if (!child || child.exitCode !== null || child.signalCode !== null || !child.stdin) return undefined;
    child.stdin.end(JSON.stringify(handover));
    return child;
  }

  /** Stops the spares. */
  close() {
    this.#closed = true;
    for (const child of this.#ready.values()) killGroup(child);
    this.#ready.clear();
  }

  #spawn({ key, command, args, env }: NonNullable<ReturnType<typeof spareStartOf>>) {
    // Anywhere but a function's folder, which it is moved to at the handover. Its fourth descriptor closes once it
    // waits for a function (runtime.mjs, runtime.py).
    const child = spawnInOwnGroup(command, args, { cwd: '/', env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    child.stdin?.on('error', () => undefined);
    const started = new Promise<void>((resolve) => {
      (child.stdio[3] as Readable | null)?.once('close', resolve).resume();
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    }).finally(() => this.#started.delete(started));
    this.#started.add(started);
    // One that ends before it is taken is not replaced until a cold start asks for it (no loop of failing starts).
    child.once('exit', () => {
      if (this.#ready.get(key) === child) this.#ready.delete(key);
    });
    child.on('error', () => undefined);
    return child;
  }
}
