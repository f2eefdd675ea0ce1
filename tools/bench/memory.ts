// What the local runner holds in memory, for `npm run bench`: its own process's resident set and that of every
// process it started (execution environments, spare runtime processes, the database), read from Linux's /proc
// ("proc(5)": /proc/<pid>/stat's ppid, /proc/<pid>/status's VmRSS). On another system the figures are not measured.
import { readdirSync, readFileSync } from 'node:fs';

/** Each process's parent, by pid. */
const parents = () => {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) is in parentheses and may hold spaces: the fields after its last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // The process ended while the list was read.
    }
  }
  return parentOf;
};

const rssKiB = (pid: number) => {
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** This process's resident set, and the sum of its descendants', in MiB; undefined where /proc is not Linux's. */
export const memoryMiB = (): { own: number; children: number } | undefined => {
  if (process.platform !== 'linux') return undefined;
  const parentOf = parents();
  const descendants = new Set<number>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parentOf)
      if (!descendants.has(pid) && (ppid === process.pid || descendants.has(ppid))) {
        descendants.add(pid);
        grew = true;
      }
  }
  const children = [...descendants].reduce((sum, pid) => sum + rssKiB(pid), 0);
  return { own: rssKiB(process.pid) / 1024, children: children / 1024 };
};

/** A memory reading as the report shows it. */
export const shownMemory = (reading: ReturnType<typeof memoryMiB>) =>
  reading === undefined
    ? 'not measured (not Linux)'
    : `${reading.own.toFixed(0)} MiB the runner's process, ${reading.children.toFixed(0)} MiB the processes it started`;
