// A certified OpenID provider for the tests: panva's `oidc-provider` (OpenID Certified), served over https on
// loopback with a certificate made here, issuing JWT access tokens (RFC 9068) by the client-credentials grant. Its
// keys are RS256, ES256, PS256 and EdDSA ones generated here; `rotate` replaces them as issuers do, the new key
// published first (the one it signs with) and the old one beside it.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenOnLoopback } from 'cdk-local-runner';
import Provider from 'oidc-provider';
import { generate } from 'selfsigned';

export type ProviderAlgorithm = 'RS256' | 'ES256' | 'PS256' | 'EdDSA';

const keyPair = (alg: ProviderAlgorithm): KeyObject => {
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519').privateKey;
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
};

let generation = 0;
/** One private JWK per algorithm, with kids of this generation. */
const newKeys = () => {
  generation += 1;
  return (['RS256', 'ES256', 'PS256', 'EdDSA'] as const).map((alg) => ({
    ...keyPair(alg).export({ format: 'jwk' }),
    kid: `${alg.toLowerCase()}-${generation}`,
    alg,
    use: 'sig',
  }));
};

/** The storage oidc-provider asks for (its quick-start one warns at each start): a map, all these tests need. */
class MapAdapter {
  static readonly stored = new Map<string, unknown>();
  readonly #model: string;
  constructor(model: string) {
    this.#model = model;
  }
  async upsert(id: string, payload: unknown) {
    MapAdapter.stored.set(`${this.#model}:${id}`, payload);
  }
  async find(id: string) {
    return MapAdapter.stored.get(`${this.#model}:${id}`) as never;
  }
  async destroy(id: string) {
    MapAdapter.stored.delete(`${this.#model}:${id}`);
  }
  async findByUid() {
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume() {}
  async revokeByGrantId() {}
}

export interface OpenIdProvider {
  issuer: string;
  /** The audience (resource indicator) of its access tokens. */
  audience: string;
  /** The test CA's certificate (PEM): the issuer's https certificate is its own. */
  caCertificate: string;
  /** A file holding `caCertificate`, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** An access token for the client, signed with `alg`, carrying `scope`. */
  token: (alg: ProviderAlgorithm, scope?: string) => Promise<string>;
  /** New keys, published before the previous ones, which stay published (a rotation as issuers do it). */
  rotate: () => void;
  close: () => Promise<void>;
}

const client = { id: 'plant-store-client', secret: 'a-client-secret-only-for-the-tests' };

export const startOpenIdProvider = async ({
  audience = 'https://plants.example.com',
  scopes = 'plants/write plants/read',
} = {}): Promise<OpenIdProvider> => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-oidc-'));
  const caFile = join(folder, 'ca.pem');
  writeFileSync(caFile, pems.cert);

  let signingAlg: ProviderAlgorithm = 'RS256';
  let keys = newKeys();
  let provider: Provider | undefined;
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => provider?.callback()(req, res));
  const issuer = (await listenOnLoopback(server as never)).replace('http:', 'https:');
  const configure = () =>
    new Provider(issuer, {
      adapter: MapAdapter,
      clients: [
        {
          client_id: client.id,
          client_secret: client.secret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          scope: scopes,
        },
      ],
      jwks: { keys },
      scopes: scopes.split(' '),
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: scopes,
            audience,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: signingAlg } },
          }),
        },
      },
    });
  provider = configure();

  return {
    issuer,
    audience,
    caCertificate: pems.cert,
    caFile,
    token: async (alg, scope = 'plants/write') => {
      signingAlg = alg;
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope, resource: audience }).toString();
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request(
          `${issuer}/token`,
          {
            method: 'POST',
            ca: pems.cert,
            auth: `${client.id}:${client.secret}`,
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const { access_token: token } = JSON.parse(answer) as { access_token?: string };
      if (token === undefined) throw new Error(`no access token from ${issuer}/token: ${answer}`);
      return token;
    },
    rotate: () => {
      keys = [...newKeys(), ...keys];
      provider = configure();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
