// The CPU time of a process and of every process under it (Linux's /proc: each process's utime and stime, its
// threads' included), each named by its role in serving a request: the runner's own process, the execution
// environments it started (lambda/runtime.mjs), the database (dynalite). Read before and after a load, the difference
// per request says where the machine's CPU went; on a CPU-bound machine, throughput follows its inverse.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks a second (`getconf CLK_TCK`): 100 on every platform Node supports. */
const ticksPerSecond = 100;

export type Role = 'runner' | 'environments' | 'database' | 'other';
/** CPU time so far, µs, by process: user and system. */
export type TreeTimes = Map<number, { role: Role; userMicros: number; systemMicros: number }>;

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // the process ended
  }
};

/** Its parent's pid, and its utime and stime (fields 4, 14 and 15 of /proc/<pid>/stat, after the command's name). */
const statOf = (pid: number) => {
  const text = read(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const micros = (field: string | undefined) => (Number(field) / ticksPerSecond) * 1_000_000;
  return { parent: Number(fields[1]), userMicros: micros(fields[11]), systemMicros: micros(fields[12]) };
};

const roleOf = (pid: number, root: number): Role => {
  if (pid === root) return 'runner';
  const command = read(`/proc/${pid}/cmdline`) ?? '';
  if (command.includes('runtime.mjs')) return 'environments';
  if (command.includes('database/process')) return 'database';
  return 'other';
};

/** Every process under `root` (and `root`), with its CPU time so far. */
export const treeTimes = (root: number): TreeTimes => {
  const stats = new Map<number, NonNullable<ReturnType<typeof statOf>>>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    const stat = Number.isInteger(pid) ? statOf(pid) : undefined;
    if (stat) stats.set(pid, stat);
  }
  const under = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = stats.get(at)?.parent)
      if (at === root) return true;
    return false;
  };
  const times: TreeTimes = new Map();
  for (const [pid, { userMicros, systemMicros }] of stats)
    if (under(pid)) times.set(pid, { role: roleOf(pid, root), userMicros, systemMicros });
  return times;
};

/** CPU time between two readings, µs, by role (a process that started between them counts from zero). */
export const timesByRole = (before: TreeTimes, after: TreeTimes, only?: (role: Role) => boolean) => {
  const byRole = new Map<Role, { micros: number; systemMicros: number }>();
  for (const [pid, now] of after) {
    if (only && !only(now.role)) continue;
    const then = before.get(pid) ?? { userMicros: 0, systemMicros: 0 };
    const sum = byRole.get(now.role) ?? { micros: 0, systemMicros: 0 };
    sum.micros += now.userMicros + now.systemMicros - then.userMicros - then.systemMicros;
    sum.systemMicros += now.systemMicros - then.systemMicros;
    byRole.set(now.role, sum);
  }
  return byRole;
};
