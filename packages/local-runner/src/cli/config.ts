// The project's configuration of the runner: `local-runner.json` in the folder the commands run in (the CDK project's,
// beside cdk.json), each setting optional (docs/configuration.md). What belongs to the app is in its template
// (a function's Metadata); what belongs to the developer's machine is on the command line.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunnerError } from '../errors.ts';
import type { IssuerIdentity } from '../issuer/dev-issuer.ts';

export interface RunnerConfig {
  /** The data folder (the database and the issuer's key), relative to the project. */
  dataDir: string;
  /** The `iss` and `aud` of the development issuer's tokens: fixed, so a token stays valid across restarts. */
  tokenIssuer: IssuerIdentity;
  /** The project's OpenAPI document, where it has one: the banner's title and requests, and the page at /docs. */
  openapi?: string;
}

export const configFileName = 'local-runner.json';

const defaults: RunnerConfig = {
  dataDir: '.local-runner',
  tokenIssuer: { issuer: 'urn:local-runner:issuer', audience: 'local-runner' },
};

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The configuration in `root` (the defaults where it has no local-runner.json); a wrong setting is named. */
export const readConfig = (root: string): RunnerConfig => {
  const file = join(root, configFileName);
  if (!existsSync(file)) return defaults;
  let read: unknown;
  try {
    read = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new RunnerError(`${file}: not JSON`);
  }
  if (typeof read !== 'object' || read === null || Array.isArray(read)) throw new RunnerError(`${file}: not an object`);
  const { dataDir, tokenIssuer, openapi, ...unknown } = read as Record<string, unknown>;
  const wrong = (setting: string, expected: string) => new RunnerError(`${file}: ${setting} must be ${expected}`);
  const [extra] = Object.keys(unknown);
  if (extra !== undefined) throw wrong(extra, 'one of dataDir, tokenIssuer, openapi (it is not a setting)');
  if (dataDir !== undefined && !isText(dataDir)) throw wrong('dataDir', 'a folder');
  if (openapi !== undefined && !isText(openapi)) throw wrong('openapi', 'a file');
  const issuer = (tokenIssuer ?? defaults.tokenIssuer) as Partial<IssuerIdentity>;
  if (!isText(issuer.issuer) || !isText(issuer.audience) || Object.keys(issuer).length !== 2)
    throw wrong('tokenIssuer', '{ "issuer": "...", "audience": "..." }');
  return {
    dataDir: dataDir ?? defaults.dataDir,
    tokenIssuer: { issuer: issuer.issuer, audience: issuer.audience },
    ...(openapi !== undefined && { openapi: join(root, openapi) }),
  };
};
