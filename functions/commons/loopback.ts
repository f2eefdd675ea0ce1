// The names of this machine's loopback interface, as a URL's `hostname` gives them: where plain http stays on the
// machine (the authorizer's issuer address, the API's CORS origin).
export const loopbackHosts: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);
