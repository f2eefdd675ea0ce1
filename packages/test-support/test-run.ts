// What a jest run checks of itself, from its global setup (startTestRun) to its teardown (endTestRun); the runner's
// run (packages/local-runner/test/global-setup.ts, global-teardown.ts) and the run of an app's tests (the repository's
// test/) both use it, so that one cannot check less than the other. After the run: no process a test started may be left (each carries the
// run's mark in its environment, inherited by every process started after the setup; any still running is killed, and
// the run fails naming it, rather than holding a pipe that would keep jest and CI waiting); every event the runners
// delivered to a function is checked against the schemas of @aws-lambda-powertools/parser, written from events
// captured on AWS by people outside this project; the run's temporary folder is removed, and the run fails naming
// anything it left in the system's temporary folder besides.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayProxyEventSchema,
  APIGatewayRequestAuthorizerEventSchema,
  APIGatewayTokenAuthorizerEventSchema,
} from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { APIGatewayProxyWebsocketEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway-websocket';
import {
  APIGatewayProxyEventV2Schema,
  APIGatewayRequestAuthorizerEventV2Schema,
} from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import { DynamoDBStreamSchema } from '@aws-lambda-powertools/parser/schemas/dynamodb';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import { KinesisDataStreamSchema } from '@aws-lambda-powertools/parser/schemas/kinesis';
import { LambdaFunctionUrlSchema } from '@aws-lambda-powertools/parser/schemas/lambda';
import { S3Schema } from '@aws-lambda-powertools/parser/schemas/s3';
import { SnsSchema } from '@aws-lambda-powertools/parser/schemas/sns';
import { SqsSchema } from '@aws-lambda-powertools/parser/schemas/sqs';
import type { ZodType } from 'zod';
import { probePythonTools } from './python-tools.ts';

/** The schema of an event of records, by its first record's source (`EventSource`, or `eventSource`). */
const recordSchemas: Record<string, ZodType> = {
  'aws:sns': SnsSchema,
  'aws:sqs': SqsSchema,
  'aws:s3': S3Schema,
  'aws:kinesis': KinesisDataStreamSchema,
  'aws:dynamodb': DynamoDBStreamSchema,
};

/**
 * A WebSocket API's proxy event (CONNECT, MESSAGE, DISCONNECT) as Powertools' one WebSocket schema allows it: that
 * schema is written from the `$connect` authorizer's event, whose `type` and `methodArn` the proxy events lack, and
 * which always has the headers and query string a message's event (no headers) or a connection without a query
 * string (no parameters) goes without.
 */
export const webSocketProxyEventSchema = APIGatewayProxyWebsocketEventSchema.omit({
  type: true,
  methodArn: true,
}).partial({ multiValueHeaders: true, queryStringParameters: true, multiValueQueryStringParameters: true });

// The mark of one jest run, in the environment of every process the run starts.
const markName = 'TEST_RUN_MARK';
// The run's temporary folder, the system's as it was (TMPDIR before the run) with what it held then, and the prefixes
// of the folders the run's tests make there (a folder of another name is not the run's to judge).
const runFolder = 'TEST_RUN_TMPDIR';
const systemFolder = 'TEST_RUN_SYSTEM_TMPDIR';
const prefixes = 'TEST_RUN_TMPDIR_PREFIXES';
const heldBefore = 'held-before.json';

/**
 * Starts a run (from a global setup): marks it (processes started from now on inherit the mark), makes its temporary
 * folder and points TMPDIR at it (os.tmpdir() reads TMPDIR, which the test workers and their processes inherit), and
 * turns the runners' event log on in it (LOCAL_RUNNER_EVENT_LOG). `ownPrefixes`: how the folders the tests make in the
 * system's temporary folder begin, for endTestRun to name any left there; the run's own is the first's, then `run-`.
 * No registry is reached: npm_config_registry is a loopback port nothing serves (the runner installs the runtime's AWS
 * SDK for an app that has none: its install fails at once, as offline).
 */
export const startTestRun = (ownPrefixes: string[]) => {
  process.env[markName] = randomUUID();
  const system = tmpdir();
  const run = mkdtempSync(join(system, `${ownPrefixes[0] ?? ''}run-`));
  writeFileSync(join(run, heldBefore), JSON.stringify(readdirSync(system)));
  Object.assign(process.env, {
    [systemFolder]: system,
    [runFolder]: run,
    [prefixes]: JSON.stringify(ownPrefixes),
    TMPDIR: run,
    npm_config_registry: 'http://127.0.0.1:9/',
    // Node's on-disk compile cache (https://nodejs.org/api/module.html#module-compile-cache), for the processes the
    // run starts: the runners started from their TypeScript sources, their databases, the synths, the CLIs (not the
    // functions: their environment is the function's alone). The same modules are loaded again in hundreds of
    // processes; a runner's start from its sources took 2.4 CPU seconds without the cache and 1.2 with it (the cache
    // keeps stripped TypeScript too: nodejs/node#56629). What runs is the same: a module's entry is used only for the
    // same source, and the cache goes with the run's folder.
    NODE_COMPILE_CACHE: join(run, 'node-compile-cache'),
  });
  process.env.LOCAL_RUNNER_EVENT_LOG = mkdtempSync(join(run, 'events-'));
  probePythonTools();
};

/** The processes carrying `mark`, but jest's own workers: their pid and command line. */
const leftOver = (mark: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        const environment = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
        const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
        if (!environment.includes(mark) || commandLine === '' || commandLine.includes('jest-worker')) return [];
        return [{ pid: Number(pid), commandLine }];
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });

const checkProcesses = () => {
  const id = process.env[markName];
  // Where there is no /proc (macOS), nothing is checked: CI and the project's machines are Linux.
  if (id === undefined || !existsSync('/proc')) return;
  const left = leftOver(`${markName}=${id}`);
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  if (left.length > 0) {
    throw new Error(
      `processes started by the tests were still running (killed now; find the test that left them):\n${left
        .map(({ pid, commandLine }) => `  ${pid} ${commandLine}`)
        .join('\n')}`,
    );
  }
};

/**
 * Each event in the runners' event logs (LOCAL_RUNNER_EVENT_LOG: the runner's src/lambda/event-log.ts) against the schema of its
 * kind: a WebSocket API's (its `eventType`: the $connect authorizer's, or a proxy event), a TOKEN or REQUEST
 * authorizer's (a REST API's, or an HTTP API's in payload 2.0), a function URL's (payload 2.0 on a `lambda-url`
 * domain), an HTTP API's proxy event (payload 2.0), else a REST API's; an event of records by its source's schema
 * (recordSchemas); an EventBridge event (its `detail-type`) by its schema; an event with none of these (a schedule's
 * own Input), or one that is no object (a task's input), is left out. Answers how many were checked.
 */
const checkEvents = (folder: string) => {
  const failures: string[] = [];
  let checked = 0;
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(folder, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const { functionId, event } = JSON.parse(line) as {
        functionId: string;
        event: {
          type?: unknown;
          version?: unknown;
          requestContext?: { eventType?: unknown; domainName?: unknown };
          Records?: { EventSource?: string; eventSource?: string }[];
        };
      };
      // A state machine's task gives a function any JSON value (a bare string an InputPath picked): no AWS event.
      if (typeof event !== 'object' || event === null) continue;
      const [record] = Array.isArray(event.Records) ? event.Records : [];
      const source = record?.EventSource ?? record?.eventSource;
      const ofRecords = source !== undefined && recordSchemas[source] !== undefined;
      // No records of a known source, no requestContext and no type: no event AWS sends, but a payload of the user's
      // own (an EventBridge Scheduler schedule's Input), which no schema describes.
      if (!ofRecords && event.requestContext === undefined && event.type === undefined && !('detail-type' in event))
        continue;
      const schema = ofRecords
        ? (recordSchemas[source] as ZodType)
        : event.requestContext?.eventType !== undefined
          ? event.type === 'REQUEST'
            ? APIGatewayProxyWebsocketEventSchema
            : webSocketProxyEventSchema
          : event.type === 'TOKEN'
            ? APIGatewayTokenAuthorizerEventSchema
            : event.type === 'REQUEST'
              ? event.version === '2.0'
                ? APIGatewayRequestAuthorizerEventV2Schema
                : APIGatewayRequestAuthorizerEventSchema
              : event.version === '2.0'
                ? String(event.requestContext?.domainName).includes('.lambda-url.')
                  ? LambdaFunctionUrlSchema
                  : APIGatewayProxyEventV2Schema
                : APIGatewayProxyEventSchema;
      // An EventBridge event (a rule's target) has a detail-type: Powertools' EventBridge schema.
      const result = ('detail-type' in event ? EventBridgeSchema : schema).safeParse(event);
      checked += 1;
      if (!result.success && failures.length < 10) {
        const issues = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
        failures.push(`  ${functionId}: ${issues}\n    ${line.slice(0, 300)}`);
      }
    }
  }
  if (failures.length > 0) {
    throw new Error(
      `events the local runner delivered fail Powertools' schemas (the first 10):\n${failures.join('\n')}`,
    );
  }
  return checked;
};

/** Removes the run's temporary folder; fails naming what the run left in the system's one besides. */
const checkTemporaryFolder = () => {
  const [run, system, own] = [process.env[runFolder], process.env[systemFolder], process.env[prefixes]];
  if (run === undefined || system === undefined || own === undefined) return;
  const before = new Set(JSON.parse(readFileSync(join(run, heldBefore), 'utf8')) as string[]);
  rmSync(run, { recursive: true, force: true });
  process.env.TMPDIR = system;
  // The run's own names only, other runs' folders (<prefix>run-) aside: the system's folder is shared with everything
  // else, other runs of the same tests included.
  const names = JSON.parse(own) as string[];
  const ours = (name: string) =>
    names.some((prefix) => name.startsWith(prefix)) && !names.some((prefix) => name.startsWith(`${prefix}run-`));
  const left = readdirSync(system).filter((name) => ours(name) && !before.has(name));
  if (left.length > 0) {
    throw new Error(`the run left these in ${system}, outside its own temporary folder: ${left.join(', ')}`);
  }
};

/** Ends a run (from a global teardown): the three checks above, the temporary folder's whatever the others found. */
export const endTestRun = () => {
  try {
    checkProcesses();
    const events = process.env.LOCAL_RUNNER_EVENT_LOG;
    if (events !== undefined && existsSync(events)) {
      console.log(`\nEvents the local runners delivered, checked against Powertools' schemas: ${checkEvents(events)}`);
    }
  } finally {
    checkTemporaryFolder();
  }
};
