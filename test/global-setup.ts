// Marks the run and gives it a temporary folder of its own (see global-teardown.ts); under `npm test`, runs the lint
// and the type check beside what follows (runChecks); then synthesizes the app once,
// with the real CDK CLI, for every test that reads the cloud assembly (the synth tier's and the local runner's
// end-to-end tests; not the unit and property tiers'). The folder reaches the test workers in
// PLANT_STORE_CLOUD_ASSEMBLY, and a copy becomes the project's cdk.out, which `npm start` serves.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestRun } from 'test-support/test-run';
import { projectRoot } from '../infra/project-root.ts';

/** What jest tells a global setup of the run: the tiers (projects) it selected, if any. */
interface RunConfig {
  selectProjects?: string[] | undefined;
}

/**
 * `npm test`'s lint and type check (PLANT_STORE_CHECKS=1, package.json), each a process of its own beside the synth
 * below, on the core it leaves idle, instead of one after the other before jest starts. Their output is printed as
 * each ends; one that fails fails the run, with its output, before any test file runs.
 */
const runChecks = async () => {
  if (process.env.PLANT_STORE_CHECKS !== '1') return;
  const failed: string[] = [];
  await Promise.all(
    ['lint', 'typecheck'].map(async (script) => {
      try {
        const { stdout, stderr } = await promisify(execFile)('npm', ['run', script], {
          cwd: projectRoot,
          maxBuffer: 64 * 1024 * 1024,
        });
        process.stdout.write(`${stdout}${stderr}`);
      } catch (error) {
        const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
        process.stdout.write(`${stdout}${stderr}`);
        failed.push(`npm run ${script}`);
      }
    }),
  );
  if (failed.length > 0) throw new Error(`${failed.join(' and ')} failed (output above)`);
};

/** The app synthesized once, for the synth and e2e tiers (see the opening comment). */
const synthesize = async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'plant-store-synth-'));
  const { stderr } = await promisify(execFile)('node_modules/.bin/cdk', ['synth', '--quiet', '--output', outdir], {
    cwd: projectRoot,
    // No home cache, and a proxy that refuses: a lookup of anything off this machine fails instead of going out.
    env: {
      ...process.env,
      CDK_HOME: join(outdir, '.cdk-home'),
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
    },
  });
  writeFileSync(join(outdir, 'synth-stderr.txt'), stderr);
  process.env.PLANT_STORE_CLOUD_ASSEMBLY = outdir;
  // The tests that run `npm start` in the project (test/local/npm-start.e2e.test.ts, the OpenID provider's) serve its
  // cdk.out. A copy of this synth, newer than every source, is what their first start would synthesize (the same
  // command, no context): the runner finds it up to date and serves it, instead of each file's first start
  // synthesizing again, and two files side by side never synthesize into the same folder at once. Copied here, before
  // any test file runs: the copy is the assembly, its asset folders, and no more.
  const extras = new Set([join(outdir, '.cdk-home'), join(outdir, 'synth-stderr.txt')]);
  cpSync(outdir, join(projectRoot, 'cdk.out'), { recursive: true, filter: (source) => !extras.has(source) });
};

export default async ({ selectProjects }: RunConfig) => {
  // The run's mark, its temporary folder and the runners' event log, as the runner's own run starts them (one
  // mechanism, so that this run checks what that one does): test/global-teardown.ts checks each.
  startTestRun(['plant-store-', 'local-runner-']);
  // The unit and property tiers read no synthesized app: `npm run test:unit` does without the CLI's synth.
  const synthNeeded = !selectProjects?.every((project) => project === 'unit' || project === 'property');
  await Promise.all([runChecks(), synthNeeded ? synthesize() : undefined]);
};
