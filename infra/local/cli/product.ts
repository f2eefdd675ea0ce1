// What the local runner's commands know of this product, and its core does not: the core (everything in infra/local/
// but cli/) serves any synthesized app and is told these (.dependency-cruiser.mjs keeps it from importing cli/).
import { projectRoot } from '../../project-root.ts';
import type { AppProject } from '../app/cloud-assembly.ts';
import type { IssuerIdentity } from '../issuer/dev-issuer.ts';

/** The app `npm start` serves: what a synth reads (the runner itself is not part of the app). */
export const appProject: AppProject = {
  root: projectRoot,
  sources: ['infra', 'functions', 'openapi.yaml', 'cdk.json', 'package-lock.json'],
  notSources: ['infra/local'],
};

/** The data folder, in the folder the command runs in. */
export const defaultDataDir = '.plant-store';

/** The `iss` and `aud` of local tokens: fixed, so a token stays valid across restarts of the runner. */
export const localTokenIssuer: IssuerIdentity = {
  issuer: 'urn:plant-store:local-issuer',
  audience: 'plant-store-local',
};

/** The subject of the tokens the commands print. */
export const developerSubject = 'local-developer';

/** The contract: the banner's title and example requests, and the API reference page. */
export const openApiPath = `${projectRoot}openapi.yaml`;
