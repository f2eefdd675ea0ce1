// The runner's map stays true: every kind of API the gateway serves (a folder of packages/local-runner/src/gateway/
// holding its `pipeline.ts`, read from the disk at test time) is drawn in CONTRIBUTING.md's picture ("Where things are
// in the runner") and in the runner's docs/development.md ("A request, file by file"). A kind added without them
// (function URLs were, issue 50) fails here, naming the page and the folder.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../infra/project-root.ts';

const gateway = join(projectRoot, 'packages/local-runner/src/gateway');

/** The folders of src/gateway/ that hold a kind of API's pipeline. */
const kinds = () =>
  readdirSync(gateway, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(gateway, entry.name, 'pipeline.ts')))
    .map((entry) => entry.name)
    .sort();

/** The first `text` block under the heading `heading` of the page `page`, before the next heading of its level. */
const pictureUnder = (page: string, heading: string) => {
  const text = readFileSync(join(projectRoot, page), 'utf8');
  const level = /^#+/.exec(heading)?.[0] ?? '';
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${page} has no heading ${heading}`);
  const section = text.slice(start + heading.length + 2).split(new RegExp(`\\n#{1,${level.length}} `))[0] ?? '';
  const picture = /^```text\n([\s\S]*?)^```/m.exec(section)?.[1];
  if (picture === undefined) throw new Error(`${page}, ${heading}: no text block`);
  return picture;
};

/** Each kind whose pipeline the picture does not name, as `page: <kind>/pipeline.ts`. */
const missingFrom = (page: string, heading: string) => {
  const picture = pictureUnder(page, heading);
  return kinds()
    .filter((kind) => !picture.includes(`${kind}/pipeline.ts`))
    .map((kind) => `${page}: ${kind}/pipeline.ts`);
};

test('the gateway serves kinds of API, each a folder with its pipeline', () => {
  // The folders are read, not listed: this names the ones there are today, so that the two tests below judge some.
  expect(kinds()).toEqual(expect.arrayContaining(['http', 'rest', 'url', 'websocket']));
});

test("CONTRIBUTING.md's picture of the runner draws every kind's pipeline", () => {
  expect(missingFrom('CONTRIBUTING.md', '## Where things are in the runner')).toEqual([]);
});

test("docs/development.md's request, file by file, draws every kind's pipeline", () => {
  expect(missingFrom('packages/local-runner/docs/development.md', '### A request, file by file')).toEqual([]);
});
