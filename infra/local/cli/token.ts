// `npm run token`: prints a bearer token from the development issuer, and nothing else, on stdout.
import { readLocalApp } from '../app/template.ts';
import { devIssuerScope, loadSigningKey, signDevToken } from '../issuer/dev-issuer.ts';
import { cloudAssemblyOf, commandFailed, dataDirOf, parseCommandLine } from './options.ts';
import { localTokenIssuer } from './product.ts';

const { values } = parseCommandLine('npm run token -- [options]', [
  'data-dir',
  'app',
  'stack',
  'sub',
  'scope',
  'expires-in',
]);
try {
  const dataDir = dataDirOf(values);
  const scope =
    values.scope ??
    devIssuerScope(
      readLocalApp(
        cloudAssemblyOf(values.app, () => undefined),
        values.stack,
      ),
    ) ??
    '';
  const expiresIn = /^\d+$/.test(values['expires-in']) ? Number(values['expires-in']) : values['expires-in'];
  const key = await loadSigningKey(dataDir, localTokenIssuer);
  console.log(await signDevToken(key, { sub: values.sub, scope, expiresIn }));
} catch (error) {
  commandFailed('npm run token', error);
}
