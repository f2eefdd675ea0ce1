// The Map state ("Map workflow state", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/state-map.html): each item (ItemsPath or JSONata Items, or a
// Distributed Map's ItemReader: item-reader.ts), made its input by ItemSelector (or the older Parameters, with
// `$$.Map.Item.Index` and `.Value`), grouped by ItemBatcher into batches `{BatchInput, Items}` ("ItemBatcher (Map)",
// https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itembatcher.html), run by its own states
// (ItemProcessor, or the older Iterator) on a copy of the variables, at most MaxConcurrency at once; the first failure
// stops the others and fails the state with that error, unless ToleratedFailureCount/Percentage allows it (more fails
// it with States.ExceedToleratedFailureThreshold). A Distributed Map (`ProcessorConfig.Mode: DISTRIBUTED`) is a Map
// Run: its history says MapRunStarted, MapRunSucceeded or MapRunFailed where an inline Map says MapStateStarted and
// each iteration, its children run in this execution (no child execution is made), and its ResultWriter writes their
// results (result-writer.ts).
import { randomUUID } from 'node:crypto';
import { localAws } from '../../app/local-aws.ts';
import { childRun, finished, type RunStates } from './branch-states.ts';
import { evaluatedFields, filled, filtered, pathValue } from './data-flow.ts';
import { runtimeError, StatesError } from './errors.ts';
import { mapField, mapNumber, readItems } from './item-reader.ts';
import { type ChildRecord, type MapRun, writtenResults } from './result-writer.ts';
import type { Definition, MapRunReport, Outcome, StateRun } from './run.ts';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The Map's items: its ItemReader's, or ItemsPath of its effective input (JSONPath) or Items (JSONata). */
const itemsOf = async (sr: StateRun) => {
  const { state } = sr;
  if (isObject(state.ItemReader)) return readItems(sr, state.ItemReader);
  let items: unknown;
  if (sr.language === 'JSONata')
    items =
      state.Items === undefined
        ? sr.input
        : await evaluatedFields(state.Items, { input: sr.input, context: sr.context }, sr.scope.variables, 'Items');
  else {
    const input = filtered(sr.input, state.InputPath, 'InputPath');
    items =
      typeof state.ItemsPath === 'string'
        ? pathValue(state.ItemsPath, { value: input, context: sr.context, variables: sr.scope.variables }, 'ItemsPath')
        : input;
  }
  if (!Array.isArray(items)) throw runtimeError(`the Map state ${sr.name}'s items are not an array`);
  return items;
};

/** One item's input: ItemSelector (or Parameters) with `$$.Map.Item`, else the item. */
const itemInput = async (sr: StateRun, item: unknown, index: number) => {
  const selector = sr.state.ItemSelector ?? (sr.language === 'JSONPath' ? sr.state.Parameters : undefined);
  if (selector === undefined) return item;
  const context = { ...sr.context, Map: { Item: { Index: index, Value: item } } };
  if (sr.language === 'JSONata')
    return evaluatedFields(selector, { input: sr.input, context }, sr.scope.variables, 'ItemSelector');
  const input = filtered(sr.input, sr.state.InputPath, 'InputPath');
  return filled(selector, { value: input, context, variables: sr.scope.variables });
};

/** How many failed items the Map tolerates: ToleratedFailureCount or ...Percentage, each also as a path or JSONata. */
const toleratedOf = async (sr: StateRun, total: number) => {
  const count = (await mapNumber(sr, sr.state, 'ToleratedFailureCount')) ?? 0;
  const percentage = (await mapNumber(sr, sr.state, 'ToleratedFailurePercentage')) ?? 0;
  return Math.max(count, Math.floor((percentage / 100) * total));
};

/** One child: an item, or a batch of them; its input made when it starts. */
interface Unit {
  index: number;
  size: number;
  item?: { Index: number; Value: unknown };
  input: () => Promise<unknown>;
}

/** The batches ItemBatcher makes: at most MaxItemsPerBatch items, and MaxInputBytesPerBatch bytes of input. */
const batchesOf = async (sr: StateRun, batcher: Fields, items: unknown[]): Promise<Unit[]> => {
  const maxItems = (await mapNumber(sr, batcher, 'MaxItemsPerBatch')) || Number.POSITIVE_INFINITY;
  const maxBytes = (await mapNumber(sr, batcher, 'MaxInputBytesPerBatch')) || 256 * 1024;
  const base =
    batcher.BatchInput === undefined ? {} : { BatchInput: await mapField(sr, batcher.BatchInput, 'BatchInput') };
  const empty = Buffer.byteLength(JSON.stringify({ ...base, Items: [] }));
  const batches: unknown[][] = [];
  let batch: unknown[] = [];
  let bytes = empty;
  for (const [index, item] of items.entries()) {
    const input = await itemInput(sr, item, index);
    const size = Buffer.byteLength(JSON.stringify(input)) + 1;
    if (batch.length > 0 && (batch.length >= maxItems || bytes + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = empty;
    }
    batch.push(input);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches.map((Items, index) => ({ index, size: Items.length, input: async () => ({ ...base, Items }) }));
};

const unitsOf = (sr: StateRun, items: unknown[]): Promise<Unit[]> | Unit[] =>
  isObject(sr.state.ItemBatcher)
    ? batchesOf(sr, sr.state.ItemBatcher, items)
    : items.map((Value, index) => ({
        index,
        size: 1,
        item: { Index: index, Value },
        input: () => itemInput(sr, Value, index),
      }));

const isDistributed = (sr: StateRun) => {
  const processor = sr.state.ItemProcessor;
  return isObject(processor) && isObject(processor.ProcessorConfig) && processor.ProcessorConfig.Mode === 'DISTRIBUTED';
};

/** A Distributed Map's run, named as AWS names one (`mapRun:<machine>/<label>:<id>`); undefined for an inline Map. */
const mapRunOf = (sr: StateRun): MapRun | undefined => {
  if (!isDistributed(sr)) return undefined;
  const id = randomUUID();
  const machine = String(sr.run.context.StateMachine.Name);
  const label = typeof sr.state.Label === 'string' ? sr.state.Label : sr.name;
  const base = `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}`;
  return {
    id,
    arn: `${base}:mapRun:${machine}/${label}:${id}`,
    childPrefix: `${base}:stateMachine:${machine}/${label}:${id}`,
  };
};

/** Each child run, at most MaxConcurrency at once, its record put in `children`; the failure that stops the Map. */
const runChildren = async (
  sr: StateRun,
  runStates: RunStates,
  units: Unit[],
  children: ChildRecord[],
  total: number,
) => {
  const inline = !isDistributed(sr);
  const processor = (sr.state.ItemProcessor ?? sr.state.Iterator) as Definition;
  const concurrency = (await mapNumber(sr, sr.state, 'MaxConcurrency')) ?? 0;
  const limit = concurrency > 0 ? concurrency : units.length;
  const tolerated = await toleratedOf(sr, total);
  const controller = new AbortController();
  const run = childRun(sr.run, controller);
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < units.length) {
      const unit = units[next++] as Unit;
      const event = { name: sr.name, index: unit.index };
      if (inline) sr.run.history.add('MapIterationStarted', event);
      const child = { name: randomUUID(), size: unit.size, input: undefined as unknown, startDate: new Date() };
      try {
        child.input = await unit.input();
        const scope = {
          ...sr.scope,
          variables: { ...sr.scope.variables },
          path: `${sr.scope.path}${sr.name}[${unit.index}]/`,
          ...(unit.item && { mapItem: unit.item }),
        };
        const output = await runStates(processor, child.input, run, scope);
        children[unit.index] = { ...child, output, stopDate: new Date() };
        if (inline) sr.run.history.add('MapIterationSucceeded', event);
      } catch (error) {
        if (!(error instanceof StatesError)) throw error;
        if (inline) sr.run.history.add('MapIterationFailed', event);
        failed += unit.size;
        children[unit.index] = { ...child, error, stopDate: new Date() };
        if (tolerated === 0) throw error;
        if (failed > tolerated)
          throw new StatesError(
            'States.ExceedToleratedFailureThreshold',
            `${failed} of ${total} items failed, over the tolerated ${tolerated}`,
          );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, units.length)) }, worker)).catch(
    (error: unknown) => {
      controller.abort();
      throw error;
    },
  );
};

/** A Distributed Map's run told to DescribeMapRun and ListMapRuns, RUNNING. */
const reportOf = (sr: StateRun, mapRun: MapRun): MapRunReport => {
  const { state } = sr;
  const writer = state.ResultWriter;
  const report: MapRunReport = {
    mapRunArn: mapRun.arn,
    executionArn: String(sr.run.context.Execution.Id),
    stateMachineArn: mapRun.childPrefix,
    status: 'RUNNING',
    startDate: new Date(),
    maxConcurrency: typeof state.MaxConcurrency === 'number' ? state.MaxConcurrency : 0,
    toleratedFailureCount: typeof state.ToleratedFailureCount === 'number' ? state.ToleratedFailureCount : 0,
    toleratedFailurePercentage:
      typeof state.ToleratedFailurePercentage === 'number' ? state.ToleratedFailurePercentage : 0,
    written: isObject(writer) && writer.Resource !== undefined,
    items: { total: 0, succeeded: 0, failed: 0 },
    executions: { total: 0, succeeded: 0, failed: 0 },
  };
  sr.run.mapRuns?.set(mapRun.arn, report);
  return report;
};

/** The report ended `status`, its counts the children's. */
const ended = (report: MapRunReport, status: MapRunReport['status'], children: ChildRecord[]) => {
  const done = children.filter((child) => child !== undefined);
  const ok = done.filter((child) => child.error === undefined);
  const items = (list: ChildRecord[]) => list.reduce((sum, child) => sum + child.size, 0);
  report.status = status;
  report.stopDate = new Date();
  report.items = { ...report.items, succeeded: items(ok), failed: items(done) - items(ok) };
  report.executions = { ...report.executions, succeeded: ok.length, failed: done.length - ok.length };
};

/** The Map's items, in their children: MapStateStarted (inline), or a map run's line and totals. */
const unitsRun = async (sr: StateRun, mapRun: MapRun | undefined, report: MapRunReport | undefined) => {
  const items = await itemsOf(sr);
  const units = await unitsOf(sr, items);
  if (report) {
    report.items.total = items.length;
    report.executions.total = units.length;
  }
  const batches = isObject(sr.state.ItemBatcher) ? ` in ${units.length} batches` : '';
  if (mapRun) sr.run.say(`${sr.scope.path}${sr.name} (Map): map run ${mapRun.id} over ${items.length} items${batches}`);
  else sr.run.history.add('MapStateStarted', { length: items.length });
  return { units, total: items.length };
};

export const mapState = async (sr: StateRun, runStates: RunStates): Promise<Outcome> => {
  const mapRun = mapRunOf(sr);
  const report = mapRun && reportOf(sr, mapRun);
  if (mapRun) sr.run.history.add('MapRunStarted', { mapRunArn: mapRun.arn });
  const children: ChildRecord[] = [];
  let started = mapRun !== undefined;
  let result: unknown;
  try {
    const { units, total } = await unitsRun(sr, mapRun, report);
    started = true;
    await runChildren(sr, runStates, units, children, total);
    result = await writtenResults(sr, mapRun, children);
  } catch (error) {
    if (report) ended(report, error instanceof StatesError ? 'FAILED' : 'ABORTED', children);
    if (error instanceof StatesError && started)
      if (mapRun) sr.run.history.add('MapRunFailed', { error: error.error, cause: error.cause });
      else sr.run.history.add('MapStateFailed');
    throw error;
  }
  if (report) ended(report, 'SUCCEEDED', children);
  sr.run.history.add(mapRun ? 'MapRunSucceeded' : 'MapStateSucceeded');
  return finished(sr, result);
};
