// `npm start` (and `npm run dev`): the entry file. It notes which process started the runner before anything else
// loads, so that one which is gone by the time the runner is serving (npm killed during the synth) is seen too; the
// runner itself is in start-runner.ts, imported after that.
const parent = process.ppid;
const { startRunner } = await import('./start-runner.ts');
await startRunner(parent);
