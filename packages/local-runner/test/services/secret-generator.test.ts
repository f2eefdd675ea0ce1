// GenerateSecretString as Secrets Manager's GetRandomPassword makes a password ("GetRandomPassword", AWS Secrets
// Manager API Reference, https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetRandomPassword.html:
// 32 characters by default, letters, digits and its punctuation, at least one of each type unless
// RequireEachIncludedType is false), checked over many generated passwords.
import { expect, test } from '@jest/globals';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { generatedPassword, generatedSecretString } from '../../src/services/secret-generator.ts';

const many = (make: () => string) => Array.from({ length: 200 }, make);

test('by default: 32 characters, each type among them, no space', () => {
  for (const password of many(() => generatedPassword({}, 'S'))) {
    expect(password).toHaveLength(32);
    expect(password).toMatch(/[a-z]/);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/[0-9]/);
    expect(password).toMatch(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/);
    expect(password).not.toContain(' ');
  }
});

test('exclusions, a length, a space', () => {
  const generator = { passwordLength: 8, excludeUppercase: true, excludePunctuation: true, excludeCharacters: 'abc0' };
  for (const password of many(() => generatedPassword(generator, 'S'))) expect(password).toMatch(/^[d-z1-9]{8}$/);
  const spaced = many(() => generatedPassword({ passwordLength: 4, includeSpace: true, excludeNumbers: true }, 'S'));
  for (const password of spaced) expect(password).toContain(' ');
});

test('SecretStringTemplate and GenerateStringKey: the template object with the password at the key', () => {
  const text = generatedSecretString(
    { secretStringTemplate: '{"username":"admin","port":5432}', generateStringKey: 'password', passwordLength: 10 },
    'S',
  );
  expect(JSON.parse(text)).toEqual({ username: 'admin', port: 5432, password: expect.stringMatching(/^.{10}$/) });
});

test('a password that cannot be made, or a template that is no object, is refused, naming the resource', () => {
  const every = { excludeLowercase: true, excludeUppercase: true, excludeNumbers: true, excludePunctuation: true };
  expect(() => generatedPassword(every, 'App/S')).toThrow(UnsupportedTemplateError);
  expect(() => generatedPassword({ passwordLength: 2 }, 'App/S')).toThrow(/^App\/S: GenerateSecretString asks/);
  expect(() => generatedSecretString({ secretStringTemplate: '[1]', generateStringKey: 'password' }, 'App/S')).toThrow(
    /^App\/S: SecretStringTemplate is not a JSON object$/,
  );
});
