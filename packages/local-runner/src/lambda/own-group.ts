// Execution environments are the runner's to stop, not the terminal's: each runs in a process group of its own, so a
// signal to the runner's group (a terminal's Ctrl-C, `kill -- -PGID`) does not reach it, and the runner lets the
// invocations in flight finish before it ends them. Out of the group, nothing but the runner would end them, so a
// watchdog does when the runner ends in a way that runs none of its code (SIGKILL, a crash): a shell, in a group of
// its own as well, that reads the groups to kill from a pipe the runner holds, and kills those left once the pipe
// closes, which the kernel does however the runner ends. Node offers no parent-death signal; a runtime's own check
// (its Runtime API's connection closing) would miss a function busy in a loop, and a custom runtime has none.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

const watchdogScript = `
groups=' '
while read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) g=\${line#-}; case $groups in *" $g "*) groups="\${groups%% $g *} \${groups#* $g }" ;; esac ;;
  esac
done
for g in $groups; do kill -9 -"$g" 2>/dev/null; done
`;

/** The watchdog while any group is alive (none otherwise: a runner with no environment leaves no process behind). */
let watchdog: { child: ChildProcess; groups: Set<number> } | undefined;

const watch = (pid: number) => {
  if (!watchdog) {
    const child = spawn('sh', ['-c', watchdogScript], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    // No sh (not a POSIX system): the environments are still killed by group when the runner stops them.
    child.on('error', () => undefined);
    // Neither it nor its pipe keeps the runner alive.
    child.unref();
    (child.stdin as Socket | null)?.unref();
    child.stdin?.on('error', () => undefined);
    watchdog = { child, groups: new Set() };
  }
  watchdog.groups.add(pid);
  watchdog.child.stdin?.write(`+${pid}\n`);
};

const unwatch = (pid: number) => {
  if (!watchdog?.groups.delete(pid)) return;
  if (watchdog.groups.size > 0) watchdog.child.stdin?.write(`-${pid}\n`);
  else {
    watchdog.child.stdin?.end();
    watchdog = undefined;
  }
};

/** SIGKILL to the whole group `child` leads: the environment and anything it started. */
export const killGroup = (child: ChildProcess) => {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: the group has no process left.
  }
};

/**
 * Spawns `command` as the leader of a process group of its own (detached), ended with the runner however the runner
 * ends; once it exits, what it left running in its group ends too.
 */
export const spawnInOwnGroup = (command: string, args: string[], options: SpawnOptions): ChildProcess => {
  const child = spawn(command, args, { ...options, detached: true });
  const { pid } = child;
  if (pid === undefined) return child;
  watch(pid);
  child.once('exit', () => {
    killGroup(child);
    unwatch(pid);
  });
  return child;
};
