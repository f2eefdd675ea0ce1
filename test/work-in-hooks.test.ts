// What a test file starts as it loads, or in a describe body, runs even when -t or --selectProjects selects none of its
// tests, and then no hook undoes it: a validator imported after the environment was torn down crashed Node, a tmpfs
// stayed mounted (issue 33). Such work belongs in beforeAll, undone in afterAll. This reads each test file's syntax
// (with swc, as jest's transform does) and names every call there that starts a process, a folder, a mount, a server,
// a fetch, a synth or an import, and every await. It sees the calls written in the file, and those made through the
// file's own functions; a helper of another file does work unseen unless its name is listed below.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { parseSync } from '@swc/core';
import { projectRoot } from '../infra/project-root.ts';

/**
 * Functions that start work: node's child processes, temporary folders and fetch; this project's helpers that start a
 * runner, an issuer or a server (start*, serve*, listen*), send a request (postPlant, a fetch), synthesize an app
 * (synthesize*, appWithoutBundling, which makes its output folder) or read a contract (contractChecker). And methods:
 * a server's listen; the CDK's synth and fromStack, which synthesize (bundling the functions, into a folder of their
 * own when the app names none).
 */
const startsWork =
  /^(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork|mkdtemp|mkdtempSync|fetch|postPlant|listen\w*|start[A-Z]\w*|serve[A-Z]\w*|synthesize[A-Z]\w*|appWithoutBundling|contractChecker|\.listen|\.synth|\.fromStack)$/;

type Node = { type?: string; span?: { start: number }; [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
/** What runs when called, not where it is written: functions, methods, accessors, constructors. */
const functionTypes = new Set([
  'ArrowFunctionExpression',
  'FunctionExpression',
  'FunctionDeclaration',
  'MethodProperty',
  'GetterProperty',
  'SetterProperty',
  'ClassMethod',
  'PrivateMethod',
  'Constructor',
]);
const isFunction = (node: unknown): boolean => isNode(node) && functionTypes.has(String(node.type));
const unwrap = (node: Node): Node =>
  node.type === 'ParenthesisExpression' && isNode(node.expression) ? unwrap(node.expression) : node;

/** Whether `callee` is describe's: describe, describe.each(...), describe.skip, (cond ? describe : describe.skip). */
const isSuite = (callee: Node): boolean => {
  const node = unwrap(callee);
  if (node.type === 'Identifier') return node.value === 'describe';
  if (node.type === 'MemberExpression' && isNode(node.object)) return isSuite(node.object);
  if (node.type === 'CallExpression' && isNode(node.callee)) return isSuite(node.callee);
  if (node.type === 'ConditionalExpression') {
    return [node.consequent, node.alternate].some((branch) => isNode(branch) && isSuite(branch));
  }
  return false;
};

/** The name a call is known by: f(), a.f() (as .f), and promisify(execFile)() by what it wraps. */
const calleeName = (callee: Node): string | undefined => {
  const node = unwrap(callee);
  if (node.type === 'Import') return 'import()';
  if (node.type === 'Identifier') return String(node.value);
  // A method by its name after a dot: a regular expression's exec is not child_process's.
  if (node.type === 'MemberExpression' && isNode(node.property) && node.property.type === 'Identifier') {
    return `.${String(node.property.value)}`;
  }
  if (node.type === 'CallExpression' && Array.isArray(node.arguments)) {
    const wrapped = node.arguments.map(({ expression }: Node) => (isNode(expression) ? calleeName(expression) : ''));
    return wrapped.find((name) => name !== undefined && startsWork.test(name));
  }
  return undefined;
};

const children = (node: Node): Node[] =>
  Object.entries(node)
    .filter(([key]) => key !== 'span')
    .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
    .filter(isNode);

/** The names of every call in `node`, at any depth. */
const callsIn = (node: Node, names = new Set<string>()): Set<string> => {
  if (node.type === 'CallExpression' && isNode(node.callee)) names.add(calleeName(node.callee) ?? '');
  for (const child of children(node)) callsIn(child, names);
  return names;
};

/** The file's own functions that start work, directly or through one another. */
const workingFunctions = (module: Node) => {
  const bodies = new Map<string, Node[]>();
  const collect = (node: Node) => {
    const named =
      node.type === 'FunctionDeclaration' && isNode(node.identifier)
        ? [node.identifier.value, node]
        : node.type === 'VariableDeclarator' &&
            isNode(node.id) &&
            node.id.type === 'Identifier' &&
            isFunction(node.init)
          ? [node.id.value, node.init]
          : undefined;
    if (named) bodies.set(String(named[0]), [...(bodies.get(String(named[0])) ?? []), named[1] as Node]);
    for (const child of children(node)) collect(child);
  };
  collect(module);
  const working = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, nodes] of bodies) {
      if (working.has(name)) continue;
      const calls = nodes.flatMap((node) => [...callsIn(node)]);
      if (calls.some((call) => call === 'import()' || startsWork.test(call) || working.has(call))) {
        working.add(name);
        grew = true;
      }
    }
  }
  return working;
};

/** Each call that starts work, and each await, outside a hook or a test of `source`: `line name`. */
const workOutsideHooks = (source: string): string[] => {
  // swc's positions run on across parses: a first statement of known length gives this one's start.
  const module = parseSync(`0;\n${source}`, { syntax: 'typescript' }) as unknown as Node & { body: Node[] };
  const base = (module.body.shift()?.span?.start ?? 0) + 3;
  const bytes = Buffer.from(source);
  const lineOf = (node: Node) => {
    const before = bytes.subarray(0, (node.span?.start ?? base) - base).toString();
    return before.split('\n').length;
  };
  const working = workingFunctions(module);
  const found: string[] = [];
  /** `eager`: `node` runs as the module loads (at the top, in a describe body, in a function called there at once). */
  const visit = (node: Node, eager: boolean): void => {
    // A function runs when it is called: later, unless the call below says now.
    if (isFunction(node)) {
      visitBody(node, false);
      return;
    }
    if (eager && node.type === 'AwaitExpression') found.push(`${lineOf(node)} await`);
    if (node.type !== 'CallExpression' || !isNode(node.callee)) {
      for (const child of children(node)) visit(child, eager);
      return;
    }
    const name = calleeName(node.callee);
    if (eager && name !== undefined && (name === 'import()' || startsWork.test(name) || working.has(name))) {
      found.push(`${lineOf(node)} ${name}`);
    }
    const callee = unwrap(node.callee);
    if (isFunction(callee)) visitBody(callee, eager);
    else visit(callee, eager);
    // describe runs its callback at once; test, the hooks and anything else are given theirs for later.
    const suite = isSuite(node.callee);
    for (const { expression } of (node.arguments ?? []) as Node[]) {
      if (!isNode(expression)) continue;
      if (isFunction(expression)) visitBody(expression, eager && suite);
      else visit(expression, eager);
    }
  };
  const visitBody = (fn: Node, eager: boolean) => {
    for (const child of children(fn)) visit(child, eager);
  };
  for (const statement of module.body) visit(statement, true);
  return found;
};

const testFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

describe('work a test file starts outside its hooks and tests', () => {
  test('none: each test file starts its processes, folders, mounts, servers, synths and imports in a hook', () => {
    const files = testFiles(join(projectRoot, 'test'));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((file) =>
      workOutsideHooks(readFileSync(file, 'utf8')).map((work) => `${relative(projectRoot, file)}:${work}`),
    );
    expect(found).toEqual([]);
  });

  test('the check finds it at the top, in a describe body and in a function called there; not in hooks or tests', () => {
    const source = [
      "import { execFile, spawnSync } from 'node:child_process';",
      'const folder = mkdtempSync(join(tmpdir(), "x-"));',
      "const mounted = spawnSync('mount', []).status === 0;",
      'const synth = () => appWithoutBundling();',
      'const template = synth();',
      'const later = () => spawnSync("true");',
      'await fetch("http://127.0.0.1:1/");',
      "describe('a suite', () => {",
      '  const validators = (async () => {',
      '    await promisify(execFile)("node", []);',
      "    return (await import('./x.js')).default;",
      '  })();',
      "  (mounted ? describe : describe.skip)('inner', () => { startRunner(); });",
      '  beforeAll(async () => { spawnSync("mount", []); await import("./y.js"); later(); });',
      "  test('a test', async () => { await fetch('http://127.0.0.1:1/'); synth(); });",
      "  (mounted ? test : test.skip)('another', () => mkdtempSync('/tmp/x-'));",
      '});',
      'afterAll(() => spawnSync("umount", []));',
      "const effective = /^CapEff:(.*)$/m.exec('');",
      'server.listen(0);',
      "const helpers = { run() { spawnSync('true'); }, get folder() { return mkdtempSync('/tmp/x-'); } };",
    ].join('\n');

    expect(workOutsideHooks(source)).toEqual([
      '2 mkdtempSync',
      '3 spawnSync',
      '5 synth',
      '7 await',
      '7 fetch',
      '10 await',
      '10 execFile',
      '11 await',
      '11 import()',
      '13 startRunner',
      '20 .listen',
    ]);
  });
});
