// tools/docs/check-links.ts, the lint step that holds every relative Markdown link to a file and a heading that exist.
// Anchors as GitHub makes them from headings (jch/html-pipeline, lib/html/pipeline/toc_filter.rb: lower case, what is
// neither a word character nor `-` dropped, each space `-`, a repeated anchor suffixed `-1`, `-2`...).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { anchorsOf, brokenLinks } from '../../../tools/docs/check-links.ts';

let root = '';
const write = (path: string, text: string) => {
  writeFileSync(join(root, path), text);
  return join(root, path);
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'check-links-'));
  mkdirSync(join(root, 'docs'));
  write(
    'docs/debugging.md',
    '# Debugging (`--inspect`)\n\n## Watch mode (`start --watch`) and reloads\n\n## Notes\n\n## Notes\n\n```md\n# not a heading\n```\n',
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a heading's anchor is GitHub's: punctuation and code marks dropped, each space a hyphen, repeats numbered", () => {
  expect([...anchorsOf('# Debugging (`--inspect`)\n## Hosts: loopback alone\n## Notes\n## Notes\n')]).toEqual([
    'debugging---inspect',
    'hosts-loopback-alone',
    'notes',
    'notes-1',
  ]);
});

test('links to files and headings that exist pass', () => {
  const file = write(
    'README.md',
    '# Front\n\n[a](docs/debugging.md) [b](docs/debugging.md#debugging---inspect) ' +
      '[c](docs/debugging.md#watch-mode-start---watch-and-reloads) [d](docs/debugging.md#notes-1) [e](#front)\n',
  );

  expect(brokenLinks([file], root)).toEqual([]);
});

test('a link to a missing file, or to a heading its file lacks, is named with its file', () => {
  const file = write(
    'moved.md',
    '# Moved\n\n[a](docs/gone.md) [b](docs/debugging.md#debugging) [c](#nowhere) [d](docs/debugging.md#not-a-heading)\n',
  );

  expect(brokenLinks([file], root)).toEqual([
    'moved.md: docs/gone.md: no such file',
    'moved.md: docs/debugging.md#debugging: no such heading',
    'moved.md: #nowhere: no such heading',
    'moved.md: docs/debugging.md#not-a-heading: no such heading',
  ]);
});

test("other sites' links, and links in code, are not followed", () => {
  const file = write(
    'examples.md',
    '[a](https://example.com/x.md#y) [b](mailto:someone@example.com)\n\n`[c](gone.md)`\n\n```md\n[d](gone.md)\n```\n',
  );

  expect(brokenLinks([file], root)).toEqual([]);
});
