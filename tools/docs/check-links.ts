// `node tools/docs/check-links.ts` (in `npm run lint`): every relative link of the repository's Markdown files names a
// file that exists and, after `#`, a heading of that file, as GitHub writes its anchor. Pages move (the runner's README
// became a front door and reference pages); a link into a heading that moved must fail here, not in a reader's hands.
// Links to other sites (`https:`, `mailto:`) are not followed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, relative, resolve } from 'node:path';

/**
 * A heading's anchor as GitHub makes it: links reduced to their text, lower case, what is neither a word character
 * nor `-` dropped, each space `-` (jch/html-pipeline, lib/html/pipeline/toc_filter.rb).
 */
const slugOf = (heading: string) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replaceAll(' ', '-');

/** Markdown without its code blocks, whose lines are examples: neither headings nor links. */
const withoutBlocks = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
/** ... and without its code spans, whose `[a](b)` is an example too. */
const withoutCode = (text: string) => withoutBlocks(text).replace(/`[^`\n]*`/g, '``');

/** The anchors of a Markdown file's headings; a repeated one gets `-1`, `-2`..., as on GitHub. */
export const anchorsOf = (text: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of withoutBlocks(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = slugOf(heading.replaceAll('`', '').trim());
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return anchors;
};

/**
 * Each relative link of `files` (absolute paths) that names no file, or no heading of it: `file: target: why`, the file
 * named from `root`.
 */
export const brokenLinks = (files: string[], root: string): string[] => {
  const anchors = new Map<string, Set<string>>();
  const anchorsAt = (path: string) => {
    const known = anchors.get(path) ?? anchorsOf(readFileSync(path, 'utf8'));
    anchors.set(path, known);
    return known;
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const [, target = ''] of withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const destination = path === '' ? file : resolve(dirname(file), decodeURI(path));
      if (!existsSync(destination)) broken.push(`${relative(root, file)}: ${target}: no such file`);
      else if (anchor !== undefined && extname(destination) === '.md' && !anchorsAt(destination).has(anchor))
        broken.push(`${relative(root, file)}: ${target}: no such heading`);
    }
  }
  return broken;
};

if (import.meta.main) {
  const root = resolve(import.meta.dirname, '../..');
  const files = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((file) => resolve(root, file));
  const broken = brokenLinks(files, root);
  for (const line of broken) console.error(line);
  if (broken.length > 0) {
    console.error(`${broken.length} broken link(s) in ${files.length} Markdown files`);
    process.exit(1);
  }
}
