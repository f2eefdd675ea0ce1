// One cold start as Lambda pays it: a fresh process loads a handler module and answers one event. Plain JavaScript,
// so that the probe itself loads nothing but Node. Writes, to the result file, the milliseconds from the process's
// start (performance.timeOrigin) to the module loaded and to the answer, and the answer.
// Usage: node cold-probe.mjs <module> <export> <event.json> <result.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [modulePath, exportName, eventPath, resultPath] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventPath, 'utf8'));
const deadline = Date.now() + 10_000;
const context = {
  functionName: 'cold-probe',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:cold-probe',
  memoryLimitInMB: '512',
  awsRequestId: 'cold-probe-request',
  logGroupName: '/aws/lambda/cold-probe',
  logStreamName: 'cold-probe',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
const handlerModule = await import(pathToFileURL(modulePath).href);
const loadedMs = performance.now();
let answer;
try {
  answer = await handlerModule[exportName](event, context);
} catch (error) {
  answer = { thrown: error instanceof Error ? error.message : String(error) };
}
const answeredMs = performance.now();
writeFileSync(resultPath, JSON.stringify({ loadedMs, answeredMs, answer }));
