// The local runner's Step Functions, for `npm run bench`: an express state machine of three states (Pass, a Lambda
// invoke task, Pass) run by StartSyncExecution, timed from just before the SDK's call to its answer: the first (the
// function's cold start included) and the p50 of the next ones, one at a time. The app is synthesized here,
// in-process (the product has no state machine).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { App, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { DefinitionBody, Pass, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { startRunner } from 'cdk-local-runner';

/** Executions timed after the first. */
const samples = 100;

export interface StepFunctionsFigures {
  /** The first execution, the task's function cold, ms. */
  firstMs: number;
  /** Each next execution, ms. */
  executionsMs: number[];
}

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 'step-functions-cdk.out');
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BenchStates');
  const fn = new LambdaFunction(stack, 'Double', {
    code: Code.fromInline('exports.handler = async (event) => ({ value: event.value * 2 });'),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  const chain = new Pass(stack, 'Given', { parameters: { value: 21 } })
    .next(
      new LambdaInvoke(stack, 'Invoke', {
        lambdaFunction: fn,
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
      }),
    )
    .next(new Pass(stack, 'Answer', { parameters: { 'doubled.$': '$.value' } }));
  new StateMachine(stack, 'Three', {
    stateMachineName: 'bench-three-states',
    stateMachineType: StateMachineType.EXPRESS,
    definitionBody: DefinitionBody.fromChainable(chain),
  });
  app.synth();
  return outdir;
};

/** Serves the app from `scratch` and measures it. */
export const measureStepFunctions = async (scratch: string): Promise<StepFunctionsFigures> => {
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: () => undefined,
  });
  const sfn = new SFNClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: runner.serviceUrls.states,
    // StartSyncExecution's `sync-` host prefix: a local endpoint takes none (docs/step-functions.md).
    disableHostPrefix: true,
  });
  const stateMachineArn = 'arn:aws:states:us-east-1:000000000000:stateMachine:bench-three-states';
  const execute = async () => {
    const before = performance.now();
    const answer = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn, input: '{}' }));
    if (answer.status !== 'SUCCEEDED')
      throw new Error(`the execution ${answer.status}: ${answer.error} ${answer.cause}`);
    return performance.now() - before;
  };
  try {
    const firstMs = await execute();
    const executionsMs: number[] = [];
    for (let sample = 0; sample < samples; sample += 1) executionsMs.push(await execute());
    return { firstMs, executionsMs };
  } finally {
    sfn.destroy();
    await runner.close();
  }
};
