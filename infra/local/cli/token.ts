// `npm run token`: prints a bearer token from the development issuer, and nothing else, on stdout.
import { resolve } from 'node:path';
import { ensureSynthesized } from '../app/cloud-assembly.ts';
import { readLocalApp } from '../app/template.ts';
import { loadSigningKey, requiredScope, signDevToken } from '../issuer/dev-issuer.ts';
import { parse, sharedOptions } from './options.ts';

const usage = `npm run token -- [options]
  --data-dir DIR     the data folder of \`npm start\` (default .plant-store/)
  --sub SUBJECT      the token's subject (default local-developer)
  --scope SCOPES     space-separated scopes (default: the scope the API requires)
  --expires-in TIME  seconds, or a span such as 30m or 12h (default 1h)`;

const { values } = parse(
  {
    'data-dir': sharedOptions['data-dir'],
    stack: sharedOptions.stack,
    help: sharedOptions.help,
    sub: { type: 'string', default: 'local-developer' },
    scope: { type: 'string' },
    'expires-in': { type: 'string', default: '1h' },
  },
  usage,
);
const dataDir = resolve(values['data-dir']);
const scope =
  values.scope ??
  requiredScope(
    readLocalApp(
      ensureSynthesized(() => undefined),
      values.stack,
    ),
  );
const expiresIn = /^\d+$/.test(values['expires-in']) ? Number(values['expires-in']) : values['expires-in'];
console.log(await signDevToken(await loadSigningKey(dataDir), { sub: values.sub, scope, expiresIn }));
