// A closed-loop HTTP load for the benchmark, in a process of its own: `connections` clients, each sending its next
// POST /plants as soon as the last is answered, for `seconds`. Each create has a new id. Prints its figures as JSON.
// Usage: node http-load.ts <url> <token> <connections> <seconds> <first id>
import { Agent, request } from 'node:http';
import { percentile } from './statistics.ts';

const [url = '', token = '', connectionsText = '1', secondsText = '5', firstIdText = '1'] = process.argv.slice(2);
const connections = Number(connectionsText);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
let nextId = Number(firstIdText);
const target = new URL('/plants', url);

const post = () =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ id: nextId++, name: 'Monstera deliciosa', tag: 'aroid' });
    const started = performance.now();
    request(
      target,
      {
        method: 'POST',
        agent,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`POST /plants answered ${response.statusCode}`)),
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
    while (performance.now() < until) latencies.push(await post());
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
