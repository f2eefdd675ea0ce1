// CORS origins a browser could send but the API cannot take (infra/constructs/plant-store-api.ts, corsOriginProblem),
// each with the reason its refusal names: the synth's context and the construct refuse the same.

/** What a refusal of a host names. */
const notAHost = /: the host .* is none of: a DNS name \(/;

/**
 * Hosts the URL parser keeps as they are, so each is its own serialized origin, but that are not host names: API
 * Gateway writes the origin in single quotes (a quote ends it), and no browser is sent from a public name like these.
 */
export const oddHostOrigins: [string, RegExp][] = [
  ...["'", '"', '$', '{', '}', '`', '!', '&', '(', ')', '+', ';', '=', '~', '_'].map((character): [string, RegExp] => [
    `https://a${character}b.example`,
    notAHost,
  ]),
  ['https://app.example.com.', notAHost],
  ['https://app..example.com', notAHost],
  ['https://-app.example.com', notAHost],
  ['https://app-.example.com', notAHost],
  [`https://${'a'.repeat(64)}.example`, notAHost],
  [`https://${'a.'.repeat(127)}example`, notAHost],
  ['https://app.example.com:0', /: port 0 is no port a page is served from/],
];
