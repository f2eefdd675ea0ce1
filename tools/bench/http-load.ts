// A closed-loop HTTP load for the benchmark, in a process of its own: `connections` clients, each sending its next
// POST /plants as soon as the last is answered, for `seconds`. Each create has a new id. Prints its figures as JSON.
// Usage: node http-load.ts <url> <token> <connections> <seconds> <first id> [GET]
// With GET: a GET of <url> itself each time (a function URL's), no body, no token.
import { Agent, request } from 'node:http';
import { percentile } from './statistics.ts';

const [url = '', token = '', connectionsText = '1', secondsText = '5', firstIdText = '1', mode = 'POST'] =
  process.argv.slice(2);
const connections = Number(connectionsText);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
let nextId = Number(firstIdText);
const gets = mode === 'GET';
const target = gets ? new URL(url) : new URL('/plants', url);

const send = () =>
  new Promise<number>((resolve, reject) => {
    const body = gets ? undefined : JSON.stringify({ id: nextId++, name: 'Monstera deliciosa', tag: 'aroid' });
    const started = performance.now();
    request(
      target,
      {
        method: gets ? 'GET' : 'POST',
        agent,
        headers: gets ? {} : { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${gets ? `GET ${target.pathname}` : 'POST /plants'} answered ${response.statusCode}`)),
        );
      },
    )
      .on('error', reject)
      .end(body);
  });

const latencies: number[] = [];
const began = performance.now();
const until = began + Number(secondsText) * 1000;
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (performance.now() < until) latencies.push(await send());
  }),
);
const elapsed = performance.now() - began;
agent.destroy();
console.log(
  JSON.stringify({
    requests: latencies.length,
    perSecond: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    nextId,
  }),
);
