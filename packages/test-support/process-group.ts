// Processes the tests start, each in a process group of its own, so that it and everything it starts (npm, the
// runner, its database process) can be stopped together, whatever state a failed test left them in.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

const groups = new Set<number>();

/** Spawns `command` as the leader of a new process group (detached), remembered for stopGroups(). */
export const spawnInGroup = (command: string, args: string[], options: SpawnOptions): ChildProcess => {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) groups.add(child.pid);
  return child;
};

/** Sends `signal` to the whole group `child` leads. */
export const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => process.kill(-(child.pid ?? 0), signal);

/** SIGKILL to every group spawnInGroup started (for an afterEach or a finally): none outlives its test. */
export const stopGroups = () => {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the group has no process left.
    }
  }
  groups.clear();
};
