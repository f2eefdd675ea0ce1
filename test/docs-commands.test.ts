// The commands the documentation tells a reader to run name files that exist: a page naming a script that moved
// (`node infra/local/cli/start.ts`, issue 42) sends a stranger to a file that is not there. CHANGELOG files record
// what was, and are not read.
import { existsSync, globSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';

test('each `node FILE` in the documentation names a file there is', () => {
  const pages = globSync('**/*.md', { cwd: projectRoot, exclude: ['**/node_modules/**', '**/CHANGELOG.md'] });
  const missing = pages.flatMap((page) =>
    [...readFileSync(join(projectRoot, page), 'utf8').matchAll(/\bnode ([\w./-]+\.(?:ts|js|mjs|cjs))\b/g)]
      .map(([, file = '']) => file)
      // From the repository's root, or from the page's folder (an example's README).
      .filter((file) => !existsSync(join(projectRoot, file)) && !existsSync(join(projectRoot, dirname(page), file)))
      .map((file) => `${page}: node ${file}`),
  );
  expect(missing).toEqual([]);
});
