// The Node.js versions the package runs on, as its manifest's `engines` says (https://docs.npmjs.com/cli/v11/configuring-npm/package-json#engines):
// an older one is refused in a line, not by a stack from a missing API.
import { readFileSync } from 'node:fs';
import { expect, test } from '@jest/globals';
import { nodeRefusal } from '../../src/cli/node-version.ts';

const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

test('the manifest asks 22.15 or later: 22.15, 22.23, 24 and 26 run; 20, 22.14 and 18 are refused, naming both', () => {
  for (const version of ['22.15.0', '22.23.3', '24.21.0', '26.0.0'])
    expect(nodeRefusal(version, engines.node)).toBeUndefined();
  for (const version of ['20.20.2', '22.14.0', '18.20.8'])
    expect(nodeRefusal(version, engines.node)).toBe(
      `cdk-local-runner needs Node.js 22.15 or later; this is Node.js ${version}`,
    );
});

test('an engines field of another form is a bug of the package, said', () => {
  expect(() => nodeRefusal('24.0.0', '^22 || ^24')).toThrow(/not of the form >=MAJOR.MINOR/);
});
