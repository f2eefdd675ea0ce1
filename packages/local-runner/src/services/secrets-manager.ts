// Secrets Manager, locally: GetSecretValue, PutSecretValue and CreateSecret of the AWS Secrets Manager API Reference
// (the JSON protocol, target prefix `secretsmanager`), on secrets kept in the data folder (state-file.ts), every
// value encrypted with its key (data-key.ts), with versions and their staging labels (AWSCURRENT, AWSPREVIOUS).
// Seeded at start from the template's AWS::SecretsManager::Secret resources and the --service-values file (seed).
import { randomUUID } from 'node:crypto';
import { localSecretArn } from '../app/return-values.ts';
import type { DataKey } from './data-key.ts';
import { type JsonInput, type JsonService, ServiceError } from './json-protocol.ts';
import type { StateFile } from './state-file.ts';

interface SecretVersion {
  id: string;
  /** Sealed (data-key.ts): the SecretString, or the SecretBinary's base64. */
  value: string;
  binary: boolean;
  stages: string[];
  /** Epoch milliseconds. */
  created: number;
}

interface StoredSecret {
  name: string;
  arn: string;
  created: number;
  versions: SecretVersion[];
  /** The fingerprint of the seed that last put it (seed), if one did. */
  seeded?: string;
  /** Whether a PutSecretValue put a value since that seed. */
  putSince?: boolean;
}

export interface SecretState {
  secrets: StoredSecret[];
}

export const emptySecrets = (): SecretState => ({ secrets: [] });

const current = 'AWSCURRENT';
const previous = 'AWSPREVIOUS';

const notFound = () =>
  new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const invalidParameter = (message: string) => new ServiceError('InvalidParameterException', message);

const text = (input: JsonInput, key: string) => {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(`${key} must be a string`);
  return value;
};

/** The value a call gives: its SecretString or its SecretBinary (base64 in JSON), exactly one of them. */
const givenValue = (input: JsonInput, required: boolean) => {
  const secretString = text(input, 'SecretString');
  const secretBinary = text(input, 'SecretBinary');
  if (secretString !== undefined && secretBinary !== undefined)
    throw invalidParameter('You can specify either SecretString or SecretBinary, but not both.');
  if (secretString !== undefined) return { value: secretString, binary: false };
  if (secretBinary !== undefined) return { value: secretBinary, binary: true };
  if (required) throw invalidParameter('You must provide either SecretString or SecretBinary.');
  return undefined;
};

/** "CreateSecret": letters, digits and `/_+=.@-`, at most 512 characters. */
const checkedName = (name: string | undefined) => {
  if (name === undefined || !/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(name))
    throw new ServiceError(
      'ValidationException',
      `Invalid name ${JSON.stringify(name)}: a secret's name takes letters, digits and /_+=.@- alone, at most 512 of them`,
    );
  return name;
};

/** What every operation works on: the secrets' file, and the key their values are sealed with. */
interface Store {
  file: StateFile<SecretState>;
  key: DataKey;
}

/**
 * The secret `id` names: its name, its ARN, or an ARN of its name with another six-character suffix (a partial or
 * another component's ARN of it), as "GetSecretValue" takes "the ARN or name of the secret".
 */
const find = (state: SecretState, id: string | undefined) => {
  if (id === undefined) throw invalidParameter('SecretId is required');
  const tail = id.startsWith('arn:') ? id.slice(id.indexOf(':secret:') + ':secret:'.length) : undefined;
  const ofName = (name: string) =>
    tail === name || (tail?.startsWith(`${name}-`) && /^[A-Za-z0-9]{6}$/.test(tail.slice(name.length + 1)));
  return state.secrets.find(({ name, arn }) => name === id || arn === id || ofName(name));
};

const newSecret = (name: string): StoredSecret => ({
  name,
  arn: localSecretArn(name),
  created: Date.now(),
  versions: [],
});

/** Adds a version holding `value` with `stages` (by default AWSCURRENT), moving those labels off the others. */
const addVersion = (
  key: DataKey,
  secret: StoredSecret,
  { value, binary, id, stages = [current] }: { value: string; binary: boolean; id: string; stages?: string[] },
) => {
  const wasCurrent = secret.versions.find((v) => v.stages.includes(current));
  for (const version of secret.versions) version.stages = version.stages.filter((stage) => !stages.includes(stage));
  // "PutSecretValue": moving AWSCURRENT moves AWSPREVIOUS to the version AWSCURRENT was removed from.
  if (stages.includes(current) && wasCurrent) {
    for (const version of secret.versions) version.stages = version.stages.filter((stage) => stage !== previous);
    wasCurrent.stages.push(previous);
  }
  secret.versions.push({ id, value: key.seal(value), binary, stages, created: Date.now() });
  return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: stages };
};

const getSecretValue =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const secret = find(file.read(), text(input, 'SecretId'));
    if (!secret) throw notFound();
    const versionId = text(input, 'VersionId');
    const stage = text(input, 'VersionStage') ?? (versionId === undefined ? current : undefined);
    const version = secret.versions.find(
      (v) => (versionId === undefined || v.id === versionId) && (stage === undefined || v.stages.includes(stage)),
    );
    if (!version)
      throw new ServiceError(
        'ResourceNotFoundException',
        `Secrets Manager can't find the specified secret value for ${versionId === undefined ? `staging label: ${stage}` : `VersionId: ${versionId}`}`,
      );
    const value = key.open(version.value, `secret ${secret.name}`);
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.id,
      ...(version.binary ? { SecretBinary: value } : { SecretString: value }),
      VersionStages: version.stages,
      CreatedDate: version.created / 1000,
    };
  };

const createSecret =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const name = checkedName(text(input, 'Name'));
    const value = givenValue(input, false);
    const state = file.read();
    if (state.secrets.some((secret) => secret.name === name))
      throw new ServiceError(
        'ResourceExistsException',
        `The operation failed because the secret ${name} already exists.`,
      );
    const secret = newSecret(name);
    state.secrets.push(secret);
    const added = value && addVersion(key, secret, { ...value, id: text(input, 'ClientRequestToken') ?? randomUUID() });
    file.write(state);
    return { ARN: secret.arn, Name: name, ...(added && { VersionId: added.VersionId }) };
  };

/** PutSecretValue's VersionStages: a list of labels, or undefined (AWSCURRENT). */
const stagesOf = (input: JsonInput) => {
  const stages = input.VersionStages;
  if (stages !== undefined && (!Array.isArray(stages) || !stages.every((stage) => typeof stage === 'string')))
    throw invalidParameter('VersionStages must be a list of staging labels');
  return stages as string[] | undefined;
};

const putSecretValue =
  ({ file, key }: Store) =>
  (input: JsonInput) => {
    const state = file.read();
    const secret = find(state, text(input, 'SecretId'));
    if (!secret) throw notFound();
    const value = givenValue(input, true) as { value: string; binary: boolean };
    const id = text(input, 'ClientRequestToken') ?? randomUUID();
    const stages = stagesOf(input);
    // "PutSecretValue": the same token again with the same value does nothing; with another value, it is refused.
    const same = secret.versions.find((version) => version.id === id);
    if (same) {
      if (key.open(same.value, `secret ${secret.name}`) !== value.value || same.binary !== value.binary)
        throw new ServiceError(
          'ResourceExistsException',
          `A version with VersionId ${id} already exists with another value.`,
        );
      return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: same.stages };
    }
    const added = addVersion(key, secret, { ...value, id, ...(stages && { stages }) });
    secret.putSince = true;
    file.write(state);
    return added;
  };

/**
 * Creates each seed's secret when missing, and puts its value as AWSCURRENT when the seed's fingerprint differs from
 * the one that last put it; a value the user put since stays until the seed changes. `value` makes the value (a
 * generated one is made only then); undefined: an empty secret. Lines saying what was put over a value put since.
 */
const seedSecrets = (
  { file, key }: Store,
  seeds: { name: string; value: () => string | undefined; fingerprint: string; source: string }[],
) => {
  const state = file.read();
  const said: string[] = [];
  const stored = (name: string) => state.secrets.find((secret) => secret.name === name);
  const changed = seeds.filter(({ name, fingerprint }) => stored(name)?.seeded !== fingerprint);
  for (const { name, value, fingerprint, source } of changed) {
    const secret = stored(name) ?? newSecret(name);
    if (secret.putSince) said.push(`secret ${name}: ${source} changed, over the value put since`);
    if (!state.secrets.includes(secret)) state.secrets.push(secret);
    const made = value();
    if (made !== undefined) addVersion(key, secret, { value: made, binary: false, id: randomUUID() });
    Object.assign(secret, { seeded: fingerprint, putSince: false });
  }
  // Written only when a seed changed: an `invoke` beside a running start rewrites nothing of it.
  if (changed.length > 0) file.write(state);
  return said;
};

/** The service on `file`, its values sealed with `key`, and its seeding. */
export const secretsManager = (file: StateFile<SecretState>, key: DataKey) => {
  const store = { file, key };
  const service: JsonService = {
    name: 'secretsmanager',
    signingName: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    operations: {
      GetSecretValue: getSecretValue(store),
      PutSecretValue: putSecretValue(store),
      CreateSecret: createSecret(store),
    },
  };
  return { service, seed: (seeds: Parameters<typeof seedSecrets>[1]) => seedSecrets(store, seeds) };
};
