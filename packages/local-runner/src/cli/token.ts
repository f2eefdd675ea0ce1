// `cdk-local-runner token`: prints a bearer token from the development issuer, and nothing else, on stdout.
import { readLocalApp } from '../app/template.ts';
import { devIssuerScope, loadSigningKey, signDevToken } from '../issuer/dev-issuer.ts';
import { readConfig } from './config.ts';
import { cloudAssemblyOf, commandFailed, dataDirOf, parseCommandLine } from './options.ts';

const { values } = parseCommandLine('cdk-local-runner token [options]', [
  'data-dir',
  'app',
  'context',
  'stack',
  'api',
  'sub',
  'scope',
  'expires-in',
]);
try {
  const config = readConfig(process.cwd());
  const dataDir = dataDirOf(values, config);
  const scope =
    values.scope ??
    devIssuerScope(
      readLocalApp(
        cloudAssemblyOf(values, () => undefined),
        { stackName: values.stack, apiName: values.api },
      ),
    ) ??
    '';
  const expiresIn = /^\d+$/.test(values['expires-in']) ? Number(values['expires-in']) : values['expires-in'];
  const key = await loadSigningKey(dataDir, config.tokenIssuer);
  console.log(await signDevToken(key, { sub: values.sub, scope, expiresIn }));
} catch (error) {
  commandFailed('cdk-local-runner token', error);
}
