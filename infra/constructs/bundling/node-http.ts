// What the functions' dependencies import from node:http, for their bundles (esbuild aliases node:http to this file).
// Imported as an ES module, node:http evaluates every export, the lazy ones too, and so loads undici, http2 and web
// streams, which each cold start would pay for, for one table of status texts (@middy/util's).
// process.getBuiltinModule hands over the CommonJS module without that. A dependency importing a name not exported
// here fails the synth.
export const { STATUS_CODES } = process.getBuiltinModule('node:http');
