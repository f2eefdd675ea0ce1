// Preloaded (`node --import`) by `npm run load` into every process of the runner it measures: the runner, its
// database process (which inherits the runner's flags) and each execution environment (through the function's
// NODE_OPTIONS, as a user sets them on Lambda). It connects to the load tool on the loopback port in
// PLANT_STORE_MEMORY_PROBE and, each time the tool sends a line, collects all garbage (gc(): the runner is started
// with --expose-gc, the environments have it from Lambda's bootstrap flags) and answers a line of JSON with its pid, its
// heap used and external memory after that collection, and its resident memory. A leak is what survives a full
// collection and keeps growing; resident memory alone cannot tell it from a heap V8 lets grow toward its limits
// (heapTotal, the heap V8 holds whether used or not, shows that growth).
// Plain JavaScript, like runtime.mjs, so that it adds no type stripping to an environment's start.
import { connect } from 'node:net';

const port = Number(process.env.PLANT_STORE_MEMORY_PROBE);
if (port > 0) {
  const socket = connect(port, '127.0.0.1');
  // The probe never keeps a process alive, and a load tool gone is nothing to report to.
  socket.unref();
  socket.on('error', () => undefined);
  socket.setEncoding('utf8');
  const report = () => {
    const collect = globalThis.gc;
    if (typeof collect === 'function') collect();
    const { heapUsed, heapTotal, external, rss } = process.memoryUsage();
    const afterGc = typeof collect === 'function';
    // An execution environment is named by the function it runs, as Lambda names it to the function.
    const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
    const answer = {
      pid: process.pid,
      argv: process.argv.slice(1, 2),
      functionName,
      afterGc,
      heapUsed,
      heapTotal,
      external,
      rss,
    };
    socket.write(`${JSON.stringify(answer)}\n`);
  };
  let pending = '';
  socket.on('data', (chunk) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      pending = pending.slice(newline + 1);
      report();
    }
  });
}
