// A Distributed Map's ResultWriter ("ResultWriter (Map)", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultwriter.html): with `Resource`
// `arn:aws:states:::s3:putObject` and Parameters (JSONPath) or Arguments (JSONata) `{Bucket, Prefix}`, the results of
// its child workflow executions are written to the local S3 under `<Prefix>/<map run id>/`, those that succeeded in
// `SUCCEEDED_0.json` and those that failed in `FAILED_0.json`, listed by `manifest.json`
// (`{DestinationBucket, MapRunArn, ResultFiles: {FAILED, PENDING, SUCCEEDED}}`, each file's Key and Size), and the
// Map's result is `{MapRunArn, ResultWriterDetails: {Bucket, Key}}`, Key the manifest's. WriterConfig's Transformation
// shapes each result: NONE (the default with a Resource) the child execution's description, COMPACT its output (the
// default without ResultWriter), FLATTEN its output with arrays flattened; a failed child's is always its
// description. With WriterConfig alone, the transformed results are the Map's result. A write that fails is
// `States.ResultWriterFailed`. OutputType JSONL, and any other Resource, refuse the start (writerRefusal).
import { StatesError } from './errors.ts';
import { mapField } from './item-reader.ts';
import type { StateRun } from './run.ts';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A Distributed Map's run: its ARN and id, and the ARN its child executions' state machine would have. */
export interface MapRun {
  arn: string;
  id: string;
  childPrefix: string;
}

/** One child workflow execution (an item, or a batch), as it ran. */
export interface ChildRecord {
  name: string;
  /** How many items it ran. */
  size: number;
  input: unknown;
  output?: unknown;
  error?: StatesError;
  startDate: Date;
  stopDate: Date;
}

const transformations = ['NONE', 'COMPACT', 'FLATTEN'];

/** Why the runner does not write as `writer` (a Map's ResultWriter) asks, or undefined when it does. */
export const writerRefusal = (writer: unknown): string | undefined => {
  if (!isObject(writer)) return 'ResultWriter is not an object';
  if (writer.Resource !== undefined && !/^arn:[^:]+:states:::s3:putObject$/.test(String(writer.Resource)))
    return `ResultWriter.Resource ${String(writer.Resource)} is not served (s3:putObject is)`;
  const config = isObject(writer.WriterConfig) ? writer.WriterConfig : {};
  if (config.OutputType !== undefined && config.OutputType !== 'JSON')
    return `ResultWriter.WriterConfig.OutputType ${String(config.OutputType)} is not reproduced (JSON is)`;
  if (config.Transformation !== undefined && !transformations.includes(String(config.Transformation)))
    return `ResultWriter.WriterConfig.Transformation ${String(config.Transformation)} is not one of ${transformations.join(', ')}`;
  return undefined;
};

/** A child execution's description, as the result files hold it (Transformation NONE). */
const described = (run: MapRun, child: ChildRecord) => ({
  ExecutionArn: `${run.childPrefix.replace(':stateMachine:', ':execution:')}:${child.name}`,
  Input: JSON.stringify(child.input ?? null),
  InputDetails: { Included: true },
  Name: child.name,
  ...(child.error
    ? { Error: child.error.error, Cause: child.error.cause }
    : { Output: JSON.stringify(child.output ?? null), OutputDetails: { Included: true } }),
  RedriveCount: 0,
  ...(!child.error && {
    RedriveStatus: 'NOT_REDRIVABLE',
    RedriveStatusReason: 'Execution is SUCCEEDED and cannot be redriven',
  }),
  StartDate: child.startDate.toISOString(),
  StateMachineArn: run.childPrefix,
  Status: child.error ? 'FAILED' : 'SUCCEEDED',
  StopDate: child.stopDate.toISOString(),
});

/** The children's results as `transformation` shapes them. */
const transformed = (run: MapRun, children: ChildRecord[], transformation: string) => {
  if (transformation === 'NONE') return children.map((child) => described(run, child));
  const results = children.map((child) => (child.error ? described(run, child) : child.output));
  return transformation === 'FLATTEN'
    ? results.flatMap((result) => (Array.isArray(result) ? result : [result]))
    : results;
};

/** One object written with the AWS SDK integration's PutObject; its failure States.ResultWriterFailed. */
const put = async (sr: StateRun, bucket: string, key: string, body: string) => {
  try {
    await sr.run.runTask({
      resource: 'arn:aws:states:::aws-sdk:s3:putObject',
      args: { Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' },
      state: sr.name,
      signal: sr.run.signal,
      submitted: () => undefined,
    });
  } catch (error) {
    if (error instanceof StatesError)
      throw new StatesError('States.ResultWriterFailed', `${error.error}: ${error.cause}`);
    throw error;
  }
  return { Key: key, Size: Buffer.byteLength(body) };
};

/** The Map's result once its children have run: ResultWriter's (written to S3, or shaped), else their outputs. */
export const writtenResults = async (sr: StateRun, run: MapRun | undefined, children: ChildRecord[]) => {
  const writer = sr.state.ResultWriter;
  const config = isObject(writer) && isObject(writer.WriterConfig) ? writer.WriterConfig : {};
  const written = isObject(writer) && writer.Resource !== undefined;
  const transformation = String(config.Transformation ?? (written ? 'NONE' : 'COMPACT'));
  if (!run)
    return children.map((child) =>
      child.error ? { Error: child.error.error, Cause: child.error.cause } : child.output,
    );
  if (!isObject(writer) || !written) return transformed(run, children, transformation);
  const template = sr.language === 'JSONata' ? writer.Arguments : writer.Parameters;
  const args = (await mapField(sr, template ?? {}, 'ResultWriter')) as Fields;
  const bucket = String(args.Bucket ?? '');
  const prefix = String(args.Prefix ?? '').replace(/\/+$/, '');
  const folder = prefix === '' ? run.id : `${prefix}/${run.id}`;
  const files: Record<'FAILED' | 'PENDING' | 'SUCCEEDED', { Key: string; Size: number }[]> = {
    FAILED: [],
    PENDING: [],
    SUCCEEDED: [],
  };
  for (const status of ['SUCCEEDED', 'FAILED'] as const) {
    const chosen = children.filter((child) => (status === 'FAILED') === (child.error !== undefined));
    if (chosen.length === 0) continue;
    const body = JSON.stringify(transformed(run, chosen, transformation));
    files[status].push(await put(sr, bucket, `${folder}/${status}_0.json`, body));
  }
  const manifest = { DestinationBucket: bucket, MapRunArn: run.arn, ResultFiles: files };
  const key = `${folder}/manifest.json`;
  await put(sr, bucket, key, JSON.stringify(manifest));
  return { MapRunArn: run.arn, ResultWriterDetails: { Bucket: bucket, Key: key } };
};
