// The folder boundaries as `npm run lint` enforces them (.dependency-cruiser.mjs), on probe files written into a copy
// of the layout and cruised with the project's own configuration.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';

const configFile = '.dependency-cruiser.mjs';
const { default: config } = (await import(join(projectRoot, configFile))) as {
  default: { forbidden: { name: string; comment: string }[] };
};

type Cruise = { summary: { violations: { from: string; rule: { name: string } }[] } };

/**
 * The files (path -> the module each imports, `import type` when it starts with `type `) cruised together; the rule
 * violations found, as `path: message`. A module imported that the layout lacks is written too, so it resolves.
 */
export const lintImports = (imports: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
  try {
    // The project's packages too (the runner's its own), so an import of one resolves as a dependency or a
    // devDependency of the package whose file imports it.
    mkdirSync(join(dir, 'packages/local-runner'), { recursive: true });
    for (const file of [configFile, 'package.json', 'packages/local-runner/package.json'])
      copyFileSync(join(projectRoot, file), join(dir, file));
    symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    };
    for (const [path, imported] of Object.entries(imports)) {
      const [, typeOnly, specifier = ''] = /^(type )?(.*)$/.exec(imported) ?? [];
      write(
        join(dir, path),
        typeOnly
          ? `import type { Value } from '${specifier}';\n\nexport const probe: Value = 1;\n`
          : `import { value } from '${specifier}';\n\nexport const probe = value;\n`,
      );
      const target = join(dirname(join(dir, path)), specifier);
      if (specifier.startsWith('.') && !existsSync(target)) {
        write(target, 'export const value = 1;\nexport type Value = number;\n');
      }
    }
    const { stdout, stderr, status } = spawnSync(
      join(projectRoot, 'node_modules/.bin/depcruise'),
      ['--config', configFile, '--output-type', 'json', '.'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (!stdout) throw new Error(`depcruise failed (${status}): ${stderr}`);
    const comments = new Map(config.forbidden.map(({ name, comment }) => [name, comment]));
    return (JSON.parse(stdout) as Cruise).summary.violations.map(
      ({ from, rule }) => `${from}: ${comments.get(rule.name) ?? rule.name}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const otherFunctionMessage =
  "A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.";

export const functionsAloneMessage =
  'functions/ holds what is bundled: it never imports infra/, test/ or tools/ (README, Architecture).';
