// The folder boundaries as `npm run lint` enforces them (biome.json, noRestrictedImports), on probe files written
// into a copy of the layout and linted with the project's own configuration.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';

/** The files (path -> the module they import) linted together; the rule violations found, as `path: message`. */
export const lintImports = (imports: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
  copyFileSync(join(projectRoot, 'biome.json'), join(dir, 'biome.json'));
  for (const [path, imported] of Object.entries(imports)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), `import { value } from '${imported}';\n\nexport const probe = value;\n`);
  }
  const { stdout } = spawnSync(
    join(projectRoot, 'node_modules/.bin/biome'),
    ['lint', '--vcs-enabled=false', '--reporter=github', '.'],
    { cwd: dir, encoding: 'utf8' },
  );
  return [...stdout.matchAll(/^::error title=lint\/style\/noRestrictedImports,file=([^,]+),[^:]*::(.*)$/gm)].map(
    ([, file = '', message]) => `${file.slice(dir.length + 1)}: ${message}`,
  );
};

export const otherFunctionMessage =
  "A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.";
