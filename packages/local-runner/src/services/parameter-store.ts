// SSM Parameter Store, locally: GetParameter, GetParameters, GetParametersByPath, PutParameter and DeleteParameter
// of the AWS Systems Manager API Reference (the JSON protocol, target prefix `AmazonSSM`), on parameters kept in the
// data folder (state-file.ts), every value encrypted with its key (data-key.ts). Seeded at start from the template's
// AWS::SSM::Parameter resources and the --service-values file (seed).
import { localParameterArn } from '../app/return-values.ts';
import type { DataKey } from './data-key.ts';
import { type JsonInput, type JsonService, ServiceError } from './json-protocol.ts';
import type { StateFile } from './state-file.ts';

interface ParameterVersion {
  version: number;
  /** Sealed (data-key.ts), whatever its type. */
  value: string;
  /** Epoch milliseconds. */
  modified: number;
}

interface StoredParameter {
  name: string;
  type: string;
  versions: ParameterVersion[];
  /** The fingerprint of the seed that last put it (seed), if one did. */
  seeded?: string;
  /** Whether a PutParameter put it since that seed. */
  putSince?: boolean;
}

export interface ParameterState {
  parameters: StoredParameter[];
}

export const emptyParameters = (): ParameterState => ({ parameters: [] });

const types = ['String', 'StringList', 'SecureString'];
/** "PutParameter": a parameter keeps its last 100 versions. */
const keptVersions = 100;

const notFound = (name: string) => new ServiceError('ParameterNotFound', `Parameter ${name} not found.`);
const invalid = (message: string) => new ServiceError('ValidationException', message);

const text = (input: JsonInput, key: string, required = true): string | undefined => {
  const value = input[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string')
    throw invalid(
      `1 validation error detected: Value at '${key}' failed to satisfy constraint: Member must not be null and must be a string`,
    );
  return value;
};

/**
 * A parameter name as "Requirements and constraints for parameter names" (AWS Systems Manager User Guide) states it:
 * letters, digits and `_.-/`, a path fully qualified (a leading `/`), at most 15 levels, not beginning with aws or ssm.
 */
const checkedName = (name: string) => {
  if (!/^[a-zA-Z0-9_.\-/]{1,1011}$/.test(name))
    throw invalid(`Parameter name ${JSON.stringify(name)}: only a-z, A-Z, 0-9, and the symbols _.-/ are allowed`);
  if (name.includes('/') && !name.startsWith('/'))
    throw invalid(
      `Parameter name ${name}: a name formed as a path must be fully qualified with a leading forward slash (/)`,
    );
  if (/^\/?(aws|ssm)/i.test(name))
    throw invalid(`Parameter name ${name}: a name can't be prefixed with "aws" or "ssm" (case-insensitive)`);
  if (name.split('/').length - 1 > 15) throw invalid(`Parameter name ${name}: a hierarchy can have at most 15 levels`);
  return name;
};

/** What every operation works on: the parameters' file, and the key their values are sealed with. */
interface Store {
  file: StateFile<ParameterState>;
  key: DataKey;
}

const find = (state: ParameterState, name: string) => state.parameters.find((p) => p.name === name);

/** A name as given (a name or an ARN, either with a `:version` selector) as the parameter and the version it names. */
const lookup = (state: ParameterState, given: string) => {
  const [, arn, named = given, selector] =
    /^(arn:[^:]+:ssm:[^:]*:[^:]*:parameter)?([^:]+)(?::([^:]+))?$/.exec(given) ?? [];
  // An ARN names `/x` and `x` alike (`parameter/x`): the one that exists.
  const parameter = find(state, named) ?? (arn ? find(state, named.slice(1)) : undefined);
  if (!parameter) throw notFound(named);
  if (selector === undefined) return { parameter, version: parameter.versions.at(-1) as ParameterVersion };
  if (!/^\d+$/.test(selector))
    throw invalid(`${given}: parameter labels are not served locally; select a version by its number`);
  const version = parameter.versions.find((v) => v.version === Number(selector));
  if (!version)
    throw new ServiceError(
      'ParameterVersionNotFound',
      `Systems Manager could not find version ${selector} of ${named}. Verify the version and try again.`,
    );
  return { parameter, version, selector: `:${selector}` };
};

/** A parameter as the API returns it: its value decrypted when `decrypt` or not a SecureString. */
const shown = (key: DataKey, { parameter, version, selector }: ReturnType<typeof lookup>, decrypt: boolean) => {
  const plain = parameter.type !== 'SecureString' || decrypt;
  return {
    Name: parameter.name,
    Type: parameter.type,
    // Undecrypted, a SecureString's value is its ciphertext, as Parameter Store returns KMS's (here the runner's).
    Value: plain
      ? key.open(version.value, `SSM parameter ${parameter.name}`)
      : Buffer.from(version.value).toString('base64'),
    Version: version.version,
    ...(selector && { Selector: selector }),
    LastModifiedDate: version.modified / 1000,
    ARN: localParameterArn(parameter.name),
    DataType: 'text',
  };
};

/** Puts `value` as the next version of `name` (created with `type` when missing); its version number. */
const put = (
  key: DataKey,
  state: ParameterState,
  { name, type, value }: { name: string; type: string | undefined; value: string },
  seeded?: string,
) => {
  let parameter = find(state, name);
  if (!parameter) {
    if (type === undefined) throw invalid('A parameter type is required when you create a parameter.');
    parameter = { name, type, versions: [] };
    state.parameters.push(parameter);
  }
  if (type !== undefined) parameter.type = type;
  const version = (parameter.versions.at(-1)?.version ?? 0) + 1;
  const added = { version, value: key.seal(value), modified: Date.now() };
  parameter.versions = [...parameter.versions, added].slice(-keptVersions);
  if (seeded === undefined) parameter.putSince = true;
  else Object.assign(parameter, { seeded, putSince: false });
  return version;
};

const decryption = (input: JsonInput) => input.WithDecryption === true;

const getParameter =
  ({ file, key }: Store) =>
  (input: JsonInput) => ({
    Parameter: shown(key, lookup(file.read(), text(input, 'Name') as string), decryption(input)),
  });

const getParameters =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const names = input.Names;
    if (!Array.isArray(names) || names.length < 1 || names.length > 10 || !names.every((n) => typeof n === 'string'))
      throw invalid(
        "1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length between 1 and 10",
      );
    const state = file.read();
    const found: ReturnType<typeof shown>[] = [];
    const missing: string[] = [];
    for (const name of new Set(names as string[])) {
      try {
        found.push(shown(key, lookup(state, name), decryption(input)));
      } catch (error) {
        if (!(error instanceof ServiceError) || error.type !== 'ParameterNotFound') throw error;
        missing.push(name);
      }
    }
    return { Parameters: found, InvalidParameters: missing };
  };

/** GetParametersByPath's MaxResults: 1 to 10, by default 10. */
const pageSize = (input: JsonInput) => {
  const max = input.MaxResults ?? 10;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 10)
    throw invalid(
      `1 validation error detected: Value '${String(max)}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 10`,
    );
  return max;
};

const getParametersByPath =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const path = text(input, 'Path') as string;
    if (!path.startsWith('/'))
      throw invalid(
        `The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward slash "/". (${path})`,
      );
    const max = pageSize(input);
    const prefix = path.endsWith('/') ? path : `${path}/`;
    const under = file
      .read()
      .parameters.filter(
        ({ name }) => name.startsWith(prefix) && (input.Recursive === true || !name.slice(prefix.length).includes('/')),
      )
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const after = tokenPosition(input.NextToken);
    const start = after === undefined ? 0 : under.findIndex(({ name }) => name > after);
    const page = start < 0 ? [] : under.slice(start, start + max);
    const last = page.at(-1);
    const more = start >= 0 && start + max < under.length;
    return {
      Parameters: page.map((parameter) =>
        shown(key, { parameter, version: parameter.versions.at(-1) as ParameterVersion }, decryption(input)),
      ),
      ...(more && last && { NextToken: Buffer.from(JSON.stringify({ after: last.name })).toString('base64url') }),
    };
  };

const putParameter =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const name = checkedName(text(input, 'Name') as string);
    const value = text(input, 'Value') as string;
    const type = text(input, 'Type', false);
    if (type !== undefined && !types.includes(type))
      throw invalid(
        `1 validation error detected: Value '${type}' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [${types.join(', ')}]`,
      );
    const state = file.read();
    if (find(state, name) && input.Overwrite !== true)
      throw new ServiceError(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
      );
    const version = put(key, state, { name, type, value });
    file.write(state);
    return { Version: version, Tier: 'Standard' };
  };

const deleteParameter =
  ({ file }: Store) =>
  (input: JsonInput) => {
    const name = text(input, 'Name') as string;
    const state = file.read();
    if (!find(state, name)) throw notFound(name);
    file.write({ parameters: state.parameters.filter((p) => p.name !== name) });
    return {};
  };

/**
 * Puts each seed whose fingerprint differs from the one that last put its parameter (a new seed, or a changed one);
 * a parameter the user put since keeps the user's value until its seed changes. Lines saying what was put over a
 * value put since.
 */
const seedParameters = (
  { file, key }: Store,
  seeds: { name: string; type: string; value: string; fingerprint: string; source: string }[],
) => {
  const state = file.read();
  const said: string[] = [];
  const changed = seeds.filter(({ name, fingerprint }) => find(state, name)?.seeded !== fingerprint);
  for (const { fingerprint, source, ...seed } of changed) {
    if (find(state, seed.name)?.putSince)
      said.push(`SSM parameter ${seed.name}: ${source} changed, over the value put since`);
    put(key, state, seed, fingerprint);
  }
  // Written only when a seed changed: an `invoke` beside a running start rewrites nothing of it.
  if (changed.length > 0) file.write(state);
  return said;
};

/** The service on `file`, its values sealed with `key`, and its seeding. */
export const parameterStore = (file: StateFile<ParameterState>, key: DataKey) => {
  const store = { file, key };
  const service: JsonService = {
    name: 'ssm',
    signingName: 'ssm',
    targetPrefix: 'AmazonSSM',
    operations: {
      GetParameter: getParameter(store),
      GetParameters: getParameters(store),
      GetParametersByPath: getParametersByPath(store),
      PutParameter: putParameter(store),
      DeleteParameter: deleteParameter(store),
    },
  };
  return { service, seed: (seeds: Parameters<typeof seedParameters>[1]) => seedParameters(store, seeds) };
};

/** The name a NextToken says the previous page ended with; an InvalidNextToken error when it is not one of ours. */
const tokenPosition = (token: unknown): string | undefined => {
  if (token === undefined) return undefined;
  try {
    const { after } = JSON.parse(Buffer.from(String(token), 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof after === 'string') return after;
  } catch {
    // refused below
  }
  throw new ServiceError('InvalidNextToken', "The specified token isn't valid.");
};
