// The in-process ceiling (ceiling.ts) in a process of its own, for gateway-ab.ts: the createPlant bundle loaded with
// the function's environment (its database the runner's), its output to nowhere as warm-paths.ts's. It answers over
// IPC with its URL, then stops when told.
// Usage (forked): node ceiling-serve.ts <settings JSON: { modulePath, env }>
import { pathToFileURL } from 'node:url';
import { serveCeiling } from './ceiling.ts';

export interface CeilingSettings {
  modulePath: string;
  env: Record<string, string>;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as CeilingSettings;
process.env = { ...process.env, ...settings.env };
const { handler } = (await import(pathToFileURL(settings.modulePath).href)) as {
  handler: Parameters<typeof serveCeiling>[0];
};
const { url, server } = await serveCeiling(handler);
process.send?.({ url });
process.on('message', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
