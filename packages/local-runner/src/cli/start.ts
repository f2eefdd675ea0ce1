// `cdk-local-runner start`: the command. It takes the process that started the runner first, so that one gone before
// the runner serves (npm killed during the startup) is seen too: npm's pid from an npm script that sets
// LOCAL_RUNNER_PARENT_PID=$PPID (the shell's, known before Node starts), or this process's parent as it first sees it. The
// runner itself is in serve.ts, imported after that.
import { readFileSync } from 'node:fs';

/** Whether process 1 is npm itself (a container's command), read where the system shows it (Linux's /proc). */
const initIsNpm = () => {
  try {
    return /\bnpm\b|npm-cli/.test(readFileSync('/proc/1/cmdline', 'latin1'));
  } catch {
    return false;
  }
};

const given = Number(process.env.LOCAL_RUNNER_PARENT_PID) || process.ppid;
// A $PPID of 1 is npm gone before the shell started (the shell was handed to process 1), unless npm is process 1.
// Then no process is the parent (0), and the runner's first look sees it gone.
const parent = given === 1 && !initIsNpm() ? 0 : given;
const { serve } = await import('./serve.ts');
await serve(parent);
