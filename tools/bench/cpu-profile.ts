// Summarizes a V8 CPU profile (`node --cpu-prof`, or one taken in-process): self time by where it was spent. Time in
// a bundle is traced back through its source map to the package (or project file) it came from.
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const sourceMaps = new Map<string, SourceMap | undefined>();
const sourceMapOf = (url: string) => {
  if (!sourceMaps.has(url)) {
    try {
      sourceMaps.set(url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8'))));
    } catch {
      sourceMaps.set(url, undefined);
    }
  }
  return sourceMaps.get(url);
};

/** "aws-jwt-verify", "functions/commons", "Node: internal/modules", "(garbage collector)", ... */
const whereOf = ({ functionName, url, lineNumber, columnNumber }: ProfileNode['callFrame']): string => {
  if (url === '') return functionName || '(anonymous)';
  if (url.startsWith('node:')) return `Node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const entry = url.startsWith('file:') ? sourceMapOf(url)?.findEntry(lineNumber, columnNumber) : undefined;
  const source = entry && 'originalSource' in entry ? String(entry.originalSource) : url;
  const inPackage = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inPackage) return inPackage[1] as string;
  const inProject = source.match(/((?:functions|infra|test)\/.+)$/);
  return inProject ? (inProject[1] as string) : source.split('/').slice(-2).join('/');
};

/** V8's own entries, which no code calls: the rest of the frames without a script are native functions. */
const vmEntries = new Set(['(program)', '(garbage collector)', '(idle)', '(root)']);
const inNode = (node: ProfileNode) => node.callFrame.url.startsWith('node:');

/**
 * Where a sample's self time goes: its frame's place; a native function's (a socket's write, a hash) is named with
 * the nearest caller outside Node's own modules, so that a socket's writes say whose writes they are.
 */
const placeOf = (node: ProfileNode, parents: Map<number, ProfileNode>): string => {
  const { functionName, url } = node.callFrame;
  if (url !== '' || vmEntries.has(functionName)) return whereOf(node.callFrame);
  let caller = parents.get(node.id);
  while (caller && (caller.callFrame.url === '' || inNode(caller))) caller = parents.get(caller.id);
  if (!caller) return functionName || '(anonymous)';
  return `${functionName || '(anonymous)'}, from ${whereOf(caller.callFrame)} ${caller.callFrame.functionName}`;
};

/** A markdown table of the places with the most self time in `profile`. */
export const summarizeProfile = (profile: Profile, rows = 12): string => {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map(
    profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node] as const)),
  );
  const selfMs = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id);
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    if (!node || node.callFrame.functionName === '(idle)') return;
    const where = placeOf(node, parents);
    // The profiler's own work, when the profile is taken in-process.
    if (where === 'Node: inspector') return;
    selfMs.set(where, (selfMs.get(where) ?? 0) + ms);
    totalMs += ms;
  });
  const top = [...selfMs.entries()].sort(([, a], [, b]) => b - a).slice(0, rows);
  return [
    `${totalMs.toFixed(1)} ms of CPU time sampled (idle excluded), by self time:`,
    '',
    '| where | ms | share |',
    '|---|---|---|',
    ...top.map(([where, ms]) => `| ${where} | ${ms.toFixed(1)} | ${((ms / totalMs) * 100).toFixed(0)} % |`),
  ].join('\n');
};

/** The summary of the one profile `node --cpu-prof --cpu-prof-dir <profileDir>` wrote. */
export const cpuProfileSummary = (profileDir: string): string => {
  const [file] = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
  if (!file) return '(no profile was written)';
  return summarizeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Profile);
};

/** The summary of this thread's profile while `work` runs (V8's profiler through node:inspector). */
export const profiling = async (work: () => Promise<unknown>): Promise<string> => {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  let stopped: { profile: unknown };
  try {
    await work();
  } finally {
    stopped = await session.post('Profiler.stop');
    session.disconnect();
  }
  return summarizeProfile(stopped.profile as Profile);
};
