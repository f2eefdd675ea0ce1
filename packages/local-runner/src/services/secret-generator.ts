// A secret's GenerateSecretString, as Secrets Manager's GetRandomPassword makes a password (its API reference): by
// default 32 characters of upper and lower case letters, digits and the punctuation it lists, at least one of each
// type included; then, with SecretStringTemplate, the template's JSON object with the password at GenerateStringKey.
import { randomInt } from 'node:crypto';
import { UnsupportedTemplateError } from '../app/cfn.ts';
import type { SecretGenerator } from '../app/service-resources.ts';

/** "GetRandomPassword": the punctuation Secrets Manager uses. */
const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** The character types the generator includes, each less the excluded characters; the empty ones dropped. */
const typesOf = (generator: SecretGenerator) => {
  const types = [
    generator.excludeLowercase ? '' : 'abcdefghijklmnopqrstuvwxyz',
    generator.excludeUppercase ? '' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    generator.excludeNumbers ? '' : '0123456789',
    generator.excludePunctuation ? '' : punctuation,
    generator.includeSpace ? ' ' : '',
  ];
  const excluded = new Set(generator.excludeCharacters ?? '');
  return types.map((type) => [...type].filter((c) => !excluded.has(c)).join('')).filter((type) => type.length > 0);
};

const pick = (characters: string) => characters[randomInt(characters.length)] as string;

/** A password as `generator` asks; `source` (the resource) is named when it asks for one that cannot be made. */
export const generatedPassword = (generator: SecretGenerator, source: string) => {
  const length = generator.passwordLength ?? 32;
  const types = typesOf(generator);
  const requireEach = generator.requireEachIncludedType ?? true;
  if (
    !Number.isInteger(length) ||
    length < 1 ||
    length > 4096 ||
    types.length === 0 ||
    (requireEach && types.length > length)
  )
    throw new UnsupportedTemplateError(
      `${source}: GenerateSecretString asks for a password that cannot be made (length ${length}, ${types.length} character types left)`,
    );
  const all = types.join('');
  const characters = [
    ...(requireEach ? types.map(pick) : []),
    ...Array.from({ length: length - (requireEach ? types.length : 0) }, () => pick(all)),
  ];
  // Fisher-Yates: the required characters anywhere.
  for (let index = characters.length - 1; index > 0; index -= 1) {
    const other = randomInt(index + 1);
    [characters[index], characters[other]] = [characters[other] as string, characters[index] as string];
  }
  return characters.join('');
};

/** The secret's string: the password alone, or SecretStringTemplate's object with it at GenerateStringKey. */
export const generatedSecretString = (generator: SecretGenerator, source: string) => {
  const password = generatedPassword(generator, source);
  const { secretStringTemplate: template, generateStringKey: field } = generator;
  if (template === undefined || field === undefined) return password;
  let object: unknown;
  try {
    object = JSON.parse(template);
  } catch {
    object = undefined;
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    throw new UnsupportedTemplateError(`${source}: SecretStringTemplate is not a JSON object`);
  return JSON.stringify({ ...object, [field]: password });
};
