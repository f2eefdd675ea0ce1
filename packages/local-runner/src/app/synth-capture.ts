// What a synth ran, seen from inside it: every Node.js process of the synth (the CDK CLI, the app, tsc, the `npx` that
// NodejsFunction's local bundling starts esbuild through) notes its command line, its folder, its environment, and the
// project's files it loaded as modules. A module given to each by NODE_OPTIONS (`--import`) notes them in a folder of
// the system's temporary one, removed once read. The watch loop reads the notes to rebuild one bundle without a synth
// (bundles.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One Node.js process of a synth, as it noted itself. */
export interface SynthProcess {
  pid: number;
  execPath: string;
  execArgv: string[];
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Whether it could note the modules it loaded (module.registerHooks: Node.js 22.15 and later). */
  hooked: boolean;
  /** The files it loaded as modules (file paths), outside any node_modules folder. */
  loaded: string[];
}

/** The variable naming the folder the notes go to. */
const notesVariable = 'LOCAL_RUNNER_SYNTH_NOTES';

// Plain JavaScript, run by every Node.js process of the synth: one line of JSON per fact, appended to a file of its own.
const noteTaker = `import { appendFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
const file = join(process.env.${notesVariable}, String(process.pid));
const note = (fact) => appendFileSync(file, JSON.stringify(fact) + '\\n');
const hooked = typeof nodeModule.registerHooks === 'function';
note({ pid: process.pid, execPath: process.execPath, execArgv: process.execArgv, argv: process.argv, cwd: process.cwd(), env: process.env, hooked });
if (hooked)
  nodeModule.registerHooks({
    load(url, context, next) {
      if (url.startsWith('file:') && !url.includes('/node_modules/')) note({ loaded: fileURLToPath(url) });
      return next(url, context);
    },
  });
`;

export interface SynthCapture {
  /** The environment to run the synth in: `base`'s, with the note taker. */
  env: NodeJS.ProcessEnv;
  /** The processes noted so far. */
  read(): SynthProcess[];
  /** Removes the notes' folder. */
  close(): void;
}

/** The environment a process noted, without what the capture added (to run its command again as the synth did). */
const withoutCapture = (env: Record<string, string>, base: NodeJS.ProcessEnv) => {
  const { [notesVariable]: _notes, NODE_OPTIONS: _options, ...rest } = env;
  return { ...rest, ...(base.NODE_OPTIONS !== undefined && { NODE_OPTIONS: base.NODE_OPTIONS }) };
};

/** One process's notes (its first line, then each module it loaded). */
const processOf = (text: string, base: NodeJS.ProcessEnv): SynthProcess | undefined => {
  const [first, ...rest] = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  if (first === undefined) return undefined;
  const noted = first as unknown as Omit<SynthProcess, 'loaded'>;
  return {
    ...noted,
    env: withoutCapture(noted.env, base),
    loaded: rest.flatMap(({ loaded }) => (typeof loaded === 'string' ? [loaded] : [])),
  };
};

/** A capture for one synth run in `base`'s environment (by default the runner's). */
export const captureSynth = (base: NodeJS.ProcessEnv = process.env): SynthCapture => {
  const dir = mkdtempSync(join(tmpdir(), 'local-runner-synth-'));
  const hook = join(dir, 'note-taker.mjs');
  writeFileSync(hook, noteTaker);
  const importHook = `--import=${pathToFileURL(hook).href}`;
  return {
    env: {
      ...base,
      [notesVariable]: dir,
      NODE_OPTIONS: [base.NODE_OPTIONS, importHook].filter(Boolean).join(' '),
    },
    read: () =>
      readdirSync(dir)
        .filter((name) => /^\d+$/.test(name))
        .flatMap((name) => processOf(readFileSync(join(dir, name), 'utf8'), base) ?? []),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
};
