import { fileURLToPath } from 'node:url';

/** The project's folder, with a trailing slash: where package.json, cdk.json and openapi.yaml are. */
export const projectRoot = fileURLToPath(new URL('../', import.meta.url));
