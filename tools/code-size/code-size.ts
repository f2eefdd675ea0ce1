// `npm run code-size [folder]`: how big the code of a folder is (the runner's `packages/local-runner/src/` unless one
// is named): its largest file, its longest function, and how many functions run over 60 and over 100 lines (CONTRIBUTING
// asks for functions under about 60). A function is a function declaration or expression, an arrow function, a method,
// an accessor or a constructor; its lines run from its first token to its last (a leading comment not counted), so a
// function holding another counts the inner one's lines too. The TypeScript compiler's own parser finds them, in the
// folder's `.ts`, `.mts` and `.mjs` files (other files, `runtime.py`, count for the largest file alone).
// `--json` prints the figures as JSON; `--over <n>` lists the functions over n lines (60 unless named).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

export interface FunctionSize {
  /** The file, from the measured folder. */
  file: string;
  /** `name`, `Class.method`, or `outer › (arrow)` for one passed as an argument. */
  name: string;
  /** Its first line, counted from 1. */
  line: number;
  lines: number;
}

export interface FileSize {
  /** The file, from the measured folder. */
  file: string;
  lines: number;
}

export interface CodeSize {
  /** The largest file of any kind. */
  largestFile: FileSize;
  /** The largest of the files the parser reads. */
  largestSource: FileSize;
  /** Every function, longest first. */
  functions: FunctionSize[];
}

const parsed = /\.(ts|mts|mjs)$/;
const functionKinds = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.Constructor,
]);

const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const largest = (sizes: FileSize[]): FileSize =>
  sizes.reduce((found, size) => (size.lines > found.lines ? size : found), { file: '', lines: 0 });

const filesUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();

/** A node's own name, when it has one (`name: Identifier` or a string literal). */
const ownName = (node: Node): string | undefined => {
  const name = (node as Node & { name?: Node }).name;
  if (name === undefined) return undefined;
  if (name.kind === SyntaxKind.Identifier || name.kind === SyntaxKind.StringLiteral)
    return (name as Node & { text: string }).text;
  return name.getText();
};

/** The name of the class or object literal a member belongs to, if it has one. */
const ownerName = (member: Node): string | undefined => {
  const owner = member.parent;
  if (owner.kind === SyntaxKind.ClassDeclaration || owner.kind === SyntaxKind.ClassExpression)
    return ownName(owner) ?? ownName(owner.parent);
  if (owner.kind === SyntaxKind.ObjectLiteralExpression) return ownName(owner.parent);
  return undefined;
};

const qualified = (owner: string | undefined, name: string) => (owner === undefined ? name : `${owner}.${name}`);

/** A function's name: its own, its variable's, its property's, else `(arrow)` or `(function)` in the one around it. */
const nameOf = (node: Node, enclosing: string | undefined): string => {
  if (node.kind === SyntaxKind.Constructor) return qualified(ownerName(node), 'constructor');
  const own = ownName(node);
  if (own !== undefined && node.kind !== SyntaxKind.FunctionExpression)
    return node.kind === SyntaxKind.FunctionDeclaration ? own : qualified(ownerName(node), own);
  const holder = node.parent;
  if (
    holder.kind === SyntaxKind.VariableDeclaration ||
    holder.kind === SyntaxKind.PropertyDeclaration ||
    holder.kind === SyntaxKind.PropertyAssignment
  ) {
    const name = ownName(holder);
    if (name !== undefined)
      return holder.kind === SyntaxKind.VariableDeclaration ? name : qualified(ownerName(holder), name);
  }
  const anonymous = own ?? (node.kind === SyntaxKind.ArrowFunction ? '(arrow)' : '(function)');
  return enclosing === undefined ? anonymous : `${enclosing} › ${anonymous}`;
};

const functionsOf = (source: SourceFile, file: string): FunctionSize[] => {
  const found: FunctionSize[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: Node, enclosing: string | undefined): void => {
    let inside = enclosing;
    if (functionKinds.has(node.kind)) {
      const name = nameOf(node, enclosing);
      const line = lineOf(node.getStart(source));
      found.push({ file, name, line, lines: lineOf(node.getEnd()) - line + 1 });
      inside = name;
    }
    node.forEachChild((child) => visit(child, inside));
  };
  visit(source, undefined);
  return found;
};

/**
 * The sizes of `folder`'s code. The compiler (TypeScript 7's, a process of its own) reads the folder as a project of
 * a configuration that exists only in memory, so nothing is written and no project's own configuration is needed.
 */
export const measure = (folder: string): CodeSize => {
  const root = resolve(folder);
  const files = filesUnder(root);
  const sizes = files.map((path) => ({ file: relative(root, path), lines: linesOf(readFileSync(path, 'utf8')) }));
  const sources = files.filter((path) => parsed.test(path));
  const configuration = join(root, '.code-size.tsconfig.json');
  const settings = JSON.stringify({ compilerOptions: { allowJs: true, noEmit: true, types: [] }, files: sources });
  const api = new API({
    cwd: root,
    fs: {
      fileExists: (name) => (name === configuration ? true : undefined),
      readFile: (name) => (name === configuration ? settings : undefined),
    },
  });
  try {
    const project = api.updateSnapshot({ openProjects: [configuration] }).getProject(configuration);
    if (project === undefined) throw new Error(`the compiler opened no project for ${root}`);
    const functions = sources.flatMap((path) => {
      const source = project.program.getSourceFile(path);
      if (source === undefined) throw new Error(`the compiler did not read ${path}`);
      return functionsOf(source, relative(root, path));
    });
    return {
      largestFile: largest(sizes),
      largestSource: largest(sizes.filter((size) => parsed.test(size.file))),
      functions: functions.sort((a, b) => b.lines - a.lines),
    };
  } finally {
    api.close();
  }
};

/** The figures as lines of text: the largest files, the longest function, the counts, then each function over `over`. */
export const report = ({ largestFile, largestSource, functions }: CodeSize, over: number): string[] => {
  const longest = functions[0];
  const where = (f: FunctionSize) => `${f.name} (${f.file}:${f.line})`;
  return [
    `largest file: ${largestFile.file}, ${largestFile.lines} lines`,
    `largest parsed file: ${largestSource.file}, ${largestSource.lines} lines`,
    `longest function: ${longest === undefined ? 'none' : `${where(longest)}, ${longest.lines} lines`}`,
    `functions: ${functions.length}; over 60 lines: ${functions.filter((f) => f.lines > 60).length}; over 100 lines: ${functions.filter((f) => f.lines > 100).length}`,
    ...functions.filter((f) => f.lines > over).map((f) => `  ${String(f.lines).padStart(4)}  ${where(f)}`),
  ];
};

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, over: { type: 'string', default: '60' } },
  });
  const folder = positionals[0] ?? resolve(import.meta.dirname, '../../packages/local-runner/src');
  const size = measure(folder);
  if (values.json) console.log(JSON.stringify(size, null, 2));
  else console.log(report(size, Number(values.over)).join('\n'));
}
