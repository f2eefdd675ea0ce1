// tools/code-size/code-size.ts (`npm run code-size`): the functions it finds, the names it gives them and the lines it
// counts, in a folder written here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type CodeSize, measure, report } from '../../../tools/code-size/code-size.ts';

let root = '';
let size: CodeSize;

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'code-size-'));
  mkdirSync(join(root, 'app'));
  // A function of 1 + 3 + 1 lines, then a class whose method is 1 + 61 + 1 lines.
  writeFileSync(
    join(root, 'app/one.ts'),
    [
      '/** A leading comment, not counted. */',
      'export function declared() {',
      body(3),
      '}',
      'export class Pool {',
      '  invoke(): void {',
      body(61),
      '  }',
      '  constructor() {}',
      '}',
      '',
    ].join('\n'),
  );
  // An arrow in a variable holding an anonymous one, 101 lines in all; a method of an object literal.
  writeFileSync(
    join(root, 'app/two.mjs'),
    [
      'export const outer = () => {',
      '  [1].map((n) => {',
      body(97),
      '  });',
      '};',
      'export const handlers = { ping() { return 1; } };',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'runtime.py'), `${'pass\n'.repeat(200)}`);
  size = measure(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

test('each function is named and measured from its first token to its last', () => {
  expect(size.functions.map(({ file, name, line, lines }) => [file, name, line, lines])).toEqual([
    ['app/two.mjs', 'outer', 1, 101],
    ['app/two.mjs', 'outer › (arrow)', 2, 99],
    ['app/one.ts', 'Pool.invoke', 8, 63],
    ['app/one.ts', 'declared', 2, 5],
    ['app/one.ts', 'Pool.constructor', 71, 1],
    ['app/two.mjs', 'handlers.ping', 102, 1],
  ]);
});

test('the largest file is of any kind, the largest parsed file one the parser reads', () => {
  expect(size.largestFile).toEqual({ file: 'runtime.py', lines: 200 });
  expect(size.largestSource).toEqual({ file: 'app/two.mjs', lines: 102 });
});

test('the report counts the functions over 60 and over 100 lines and lists those over the bound', () => {
  expect(report(size, 60)).toEqual([
    'largest file: runtime.py, 200 lines',
    'largest parsed file: app/two.mjs, 102 lines',
    'longest function: outer (app/two.mjs:1), 101 lines',
    'functions: 6; over 60 lines: 3; over 100 lines: 1',
    '   101  outer (app/two.mjs:1)',
    '    99  outer › (arrow) (app/two.mjs:2)',
    '    63  Pool.invoke (app/one.ts:8)',
  ]);
});
