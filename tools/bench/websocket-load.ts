// A closed-loop WebSocket load for the benchmark, in a process of its own: `connections` clients (Node's built-in
// WebSocket), each sending its next message to `$default` as soon as the echo of the last arrives, for `seconds`.
// Prints its figures as JSON (messages/s, p50 and p99 of the round trip).
// Usage: node websocket-load.ts <ws url> <connections> <seconds>
import { percentile } from './statistics.ts';

const [url = '', connectionsText = '1', secondsText = '3'] = process.argv.slice(2);
const latencies: number[] = [];
const until = performance.now() + Number(secondsText) * 1000;

/** One client: open, then message after message until the time is up, then closed. */
const client = () =>
  new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(url);
    let sent = 0;
    const send = () => {
      sent = performance.now();
      socket.send(JSON.stringify({ n: latencies.length }));
    };
    socket.addEventListener('open', send);
    socket.addEventListener('message', () => {
      latencies.push(performance.now() - sent);
      if (performance.now() < until) send();
      else socket.close();
    });
    socket.addEventListener('close', () => resolve());
    socket.addEventListener('error', () => reject(new Error(`${url}: the connection failed`)));
  });

const began = performance.now();
await Promise.all(Array.from({ length: Number(connectionsText) }, client));
const elapsed = performance.now() - began;
console.log(
  JSON.stringify({
    messages: latencies.length,
    perSecond: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }),
);
