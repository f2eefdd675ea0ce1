// A handler's edit as a developer waits for it, for `npm run bench`: a copy of the project served by `start --watch`
// (the runner's built command line), createPlant's conflict message edited `edits` times, each written as an editor
// saves (a temporary file, renamed over the handler), each timed from the save to the first answer carrying the new
// text. Which way each reload went (its bundle rebuilt alone, or a synth) is read from the runner's log.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';
import { postPlant } from '../../test/helpers/post-plant.ts';

export interface HandlerEditFigures {
  /** From the save to the new answer, each edit. */
  editsMs: number[];
  /** How each reload went, as the runner's log said it. */
  paths: string[];
}

/** What `cdk synth` and the runner read, copied; node_modules linked. */
const projectCopy = () => {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-bench-edit-'));
  for (const entry of ['functions', 'infra', 'openapi.yaml', 'cdk.json', 'package.json', 'package-lock.json']) {
    cpSync(join(projectRoot, entry), join(root, entry), { recursive: true });
  }
  for (const entry of ['tsconfig.json', 'local-runner.json']) cpSync(join(projectRoot, entry), join(root, entry));
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
};

/** `start --watch` in `root`, in a process group of its own: its output as it comes, and a way to wait for a line. */
const startWatching = (root: string) => {
  const main = join(projectRoot, 'packages/local-runner/dist/cli/main.js');
  const child = spawn(process.execPath, [main, 'start', '--watch', '--port', '0', '--in-memory'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOCAL_RUNNER_PARENT_PID: String(process.pid) },
  });
  let output = '';
  const waiting: { pattern: RegExp; from: number; resolve: (match: RegExpExecArray) => void }[] = [];
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wait of [...waiting]) {
      const match = wait.pattern.exec(output.slice(wait.from));
      if (!match) continue;
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(match);
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const printed = (pattern: RegExp, from = 0) =>
    new Promise<RegExpExecArray>((resolve) => {
      waiting.push({ pattern, from, resolve });
      read(Buffer.alloc(0));
    });
  const stop = () => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  };
  return { printed, stop, output: () => output };
};

/** Measures `edits` edits of createPlant's conflict message, served by `start --watch` on a copy of the project. */
export const measureHandlerEdits = async (edits: number): Promise<HandlerEditFigures> => {
  const root = projectCopy();
  const runner = startWatching(root);
  try {
    const [, url = ''] = await runner.printed(/is serving at (http:\/\/127\.0\.0\.1:\d+)/);
    const [, token] = await runner.printed(/Authorization: Bearer ([\w.-]+)/);
    await runner.printed(/watching .* for changes/);
    const id = 9_000_000_000_000 + (Date.now() % 1_000_000);
    await postPlant(url, token, { id, name: 'Aloe' });
    const source = join(root, 'functions/create-plant/create-plant.ts');
    const original = readFileSync(source, 'utf8');
    const editsMs: number[] = [];
    const paths: string[] = [];
    for (let edit = 1; edit <= edits; edit += 1) {
      const text = `is taken (edit ${edit})`;
      const from = runner.output().length;
      const started = performance.now();
      writeFileSync(`${source}.tmp`, original.replace('already exists with a different name or tag', text));
      renameSync(`${source}.tmp`, source);
      // Asked until the answer carries the new text: the first request after the reload does.
      while (!(await (await postPlant(url, token, { id, name: 'Echeveria' })).text()).includes(text));
      editsMs.push(performance.now() - started);
      const [said = ''] = await runner.printed(/serving the new version[^\n]*/, from);
      paths.push(said.includes('without a synth') ? 'bundle rebuilt alone' : 'synth');
    }
    return { editsMs, paths };
  } finally {
    runner.stop();
    rmSync(root, { recursive: true, force: true });
  }
};
