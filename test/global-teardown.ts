// After the whole run: no process a test started may be left. Each carries the run's mark in its environment (set by
// global-setup.ts, inherited by every process started after it); any still running is killed, and the run fails
// naming it, rather than holding a pipe that would keep jest (and CI) waiting. Every event the local runners delivered
// is checked against the schemas of @aws-lambda-powertools/parser, written from events captured on AWS by people
// outside this project. Then the run's temporary folder is removed, and the run fails naming anything it left in the
// system's temporary folder besides.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayProxyEventSchema,
  APIGatewayRequestAuthorizerEventSchema,
  APIGatewayTokenAuthorizerEventSchema,
} from '@aws-lambda-powertools/parser/schemas/api-gateway';
import {
  APIGatewayProxyEventV2Schema,
  APIGatewayRequestAuthorizerEventV2Schema,
} from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import { endTemporaryFolder, testRunMark } from './helpers/test-run.ts';

/** The processes carrying this run's mark, but jest's own workers: their pid and command line. */
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

const checkTemporaryFolder = () => {
  const left = endTemporaryFolder() ?? [];
  if (left.length > 0) {
    throw new Error(`the run left these in ${tmpdir()}, outside its own temporary folder: ${left.join(', ')}`);
  }
};

const checkProcesses = () => {
  const mark = testRunMark();
  // Where there is no /proc (macOS), nothing is checked: CI and the project's machines are Linux.
  if (mark === undefined || !existsSync('/proc')) return;
  const left = leftOver(mark);
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
 * Each event in the runners' event logs (LOCAL_RUNNER_EVENT_LOG: packages/local-runner/src/lambda/event-log.ts) against the schema
 * of its kind: a TOKEN or REQUEST authorizer's (a REST API's, or an HTTP API's in payload 2.0), an HTTP API's
 * proxy event (payload 2.0), else a REST API's. Answers how many were checked.
 */
const checkEvents = (folder: string) => {
  const failures: string[] = [];
  let checked = 0;
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(folder, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const { functionId, event } = JSON.parse(line) as {
        functionId: string;
        event: { type?: unknown; version?: unknown };
      };
      const schema =
        event.type === 'TOKEN'
          ? APIGatewayTokenAuthorizerEventSchema
          : event.type === 'REQUEST'
            ? event.version === '2.0'
              ? APIGatewayRequestAuthorizerEventV2Schema
              : APIGatewayRequestAuthorizerEventSchema
            : event.version === '2.0'
              ? APIGatewayProxyEventV2Schema
              : APIGatewayProxyEventSchema;
      const result = schema.safeParse(event);
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

export default () => {
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
