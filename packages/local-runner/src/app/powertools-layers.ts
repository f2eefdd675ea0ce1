// Powertools for AWS Lambda (TypeScript)'s public layers, named by ARN: the npm version each layer version holds, as
// Powertools publishes it. Its "Lambda layers" page lists the layer ARN of each release
// (https://docs.aws.amazon.com/powertools/typescript/latest/getting-started/lambda-layers/, one page per release:
// .../powertools/typescript/<version>/getting-started/lambda-layers/; the source is docs/getting-started/lambda-layers.md,
// docs/index.md until April 2025, in aws-powertools/powertools-lambda-typescript, whose release workflow rewrites the
// ARNs there once the release's layer is published: .github/scripts/update_layer_arn.sh). Its "Versioning" page says
// each release publishes a new layer version, and the layer's description names the release. What the layer holds is
// its publisher stack's list of utilities at that release (layers/src/layer-publisher-stack.ts), installed from npm
// into `nodejs/node_modules`.
import { join } from 'node:path';

/** The accounts Powertools publishes its layers from (the "Layer ARNs" table): commercial, GovCloud, China. */
const accounts = ['094274105915', '165093116878', '165087284144', '498634801083'];

/**
 * `AWSLambdaPowertoolsTypeScriptV2` layer version → npm version, from 2 (2.0.2) to 50 (2.35.0): each the version
 * whose documentation first names that layer. Layer 1 is left out: the docs named it before 2.0's release, at no
 * single release. Later layers are not known here (refused, naming the layer, until added from the same page).
 */
// biome-ignore format: a table, one release after another
const v2Releases = [
  '2.0.2', '2.0.3', '2.0.4', '2.1.0', '2.1.1', '2.2.0', '2.3.0', '2.4.0', '2.5.0', '2.6.0', '2.7.0', '2.8.0', '2.9.0',
  '2.10.0', '2.11.0', '2.12.0', '2.13.0', '2.13.1', '2.14.0', '2.15.0', '2.16.0', '2.17.0', '2.18.0', '2.19.0',
  '2.19.1', '2.20.0', '2.21.0', '2.22.0', '2.23.0', '2.24.0', '2.24.1', '2.25.0', '2.25.1', '2.25.2', '2.26.0',
  '2.26.1', '2.27.0', '2.28.0', '2.28.1', '2.29.0', '2.30.0', '2.30.1', '2.30.2', '2.31.0', '2.32.0', '2.33.0',
  '2.33.1', '2.34.0', '2.35.0',
];
const firstV2Layer = 2;

/** `2.9.0` as a number that orders releases: 2_009_000. */
const ordered = (version: string) => {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  return major * 1_000_000 + minor * 1_000 + patch;
};

/** The utilities the layer of `version` holds: the publisher stack's list (jmespath from 2.1.0, parser 2.9.0, ...). */
const utilitiesOf = (version: string) =>
  [
    ['commons', '2.0.0'],
    ['logger', '2.0.0'],
    ['metrics', '2.0.0'],
    ['tracer', '2.0.0'],
    ['parameters', '2.0.0'],
    ['idempotency', '2.0.0'],
    ['batch', '2.0.0'],
    ['jmespath', '2.1.0'],
    ['parser', '2.9.0'],
    ['event-handler', '2.31.0'],
  ]
    .filter(([, since = '']) => ordered(version) >= ordered(since))
    .map(([name = '']) => `@aws-lambda-powertools/${name}`);

/** A Powertools layer named by ARN: the release it holds, and the packages of that release it holds. */
export interface PowertoolsLayer {
  arn: string;
  version: string;
  packages: string[];
  /** Where it is locally: `<cache>/powertools-ts-<version>`, laid out as Lambda's /opt (`nodejs/node_modules`). */
  dir: string;
}

/**
 * What `arn` is, if one of Powertools' public layers: undefined when not; `{ refused }` (why) for a layer version
 * whose release Powertools' pages do not say here (v1's `AWSLambdaPowertoolsTypeScript`, V2's first and any newer
 * than the table); else the layer, its folder in `cache`.
 */
export const powertoolsLayerOf = (arn: string, cache: string): PowertoolsLayer | { refused: string } | undefined => {
  const match = /^arn:aws[\w-]*:lambda:[\w-]+:(\d{12}):layer:(AWSLambdaPowertoolsTypeScript(?:V2)?):(\d+)$/.exec(arn);
  const [, account = '', name, layerVersion = ''] = match ?? [];
  if (!accounts.includes(account)) return undefined;
  const version = name === 'AWSLambdaPowertoolsTypeScriptV2' ? v2Releases[Number(layerVersion) - firstV2Layer] : '';
  if (!version)
    return {
      refused: `it is a public layer of Powertools for AWS Lambda (TypeScript) (${name} version ${layerVersion}), but the runner knows no release of Powertools that layer version holds (it serves AWSLambdaPowertoolsTypeScriptV2 versions ${firstV2Layer} to ${firstV2Layer + v2Releases.length - 1}, from the releases Powertools' "Lambda layers" pages name)`,
    };
  return { arn, version, packages: utilitiesOf(version), dir: join(cache, `powertools-ts-${version}`) };
};
