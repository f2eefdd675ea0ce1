// createPlant's defaults, apart from config.ts (which reads the environment when imported) so that the stack can
// import them: the stack sets each variable to its context setting or to this default.

/** The request body limit (413 above), 64 KiB, as openapi.yaml states it. */
export const defaultMaxBodyBytes = 64 * 1024;
