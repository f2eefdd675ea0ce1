// Step Functions activities ("Learn about Activities in Step Functions", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-activities.html): the template's
// (AWS::StepFunctions::Activity) and those CreateActivity makes, each with the tasks its Task states scheduled, in
// order, until a worker takes one with GetActivityTask (AWS Step Functions API Reference,
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_GetActivityTask.html: a long poll held at most
// 60 seconds, answered with no taskToken when no task came). A task given up (its state timed out or stopped) before
// a worker took it is no longer handed out.
import { activityArn } from '../../app/return-values.ts';
import type { ActivitySeed } from '../../app/state-machine-resources.ts';
import { ServiceError } from '../json-protocol.ts';

/** A task an activity's Task state scheduled, waiting for a worker. */
export interface ActivityTask {
  token: string;
  /** The task's input, as JSON text. */
  input: string;
  /** Said when a worker takes it (ActivityStarted), with the worker's name. */
  started: (workerName: string) => void;
  signal: AbortSignal;
}

interface Poller {
  take: (task: ActivityTask | undefined) => void;
  timer: NodeJS.Timeout;
}

interface Activity {
  name: string;
  arn: string;
  creationDate: Date;
  tasks: ActivityTask[];
  pollers: Poller[];
}

/** How long GetActivityTask holds a poll with no task ("The maximum time ... is 60 seconds"). */
const pollMs = 60_000;

export class Activities {
  readonly #byArn = new Map<string, Activity>();

  /** The template's activities (again after a reload: one kept keeps its tasks and pollers). */
  replace(seeds: ActivitySeed[]) {
    const kept = new Set(seeds.map((seed) => seed.arn));
    for (const arn of this.#byArn.keys()) if (!kept.has(arn)) this.#byArn.delete(arn);
    for (const seed of seeds) this.create(seed.name);
  }

  has(arn: string) {
    return this.#byArn.has(arn);
  }

  /** CreateActivity: the activity of that name, made when absent (the call is idempotent). */
  create(name: string) {
    const arn = activityArn(name);
    const found = this.#byArn.get(arn) ?? { name, arn, creationDate: new Date(), tasks: [], pollers: [] };
    this.#byArn.set(arn, found);
    return found;
  }

  list() {
    return [...this.#byArn.values()];
  }

  /** The activity `arn` names; ActivityDoesNotExist when none. */
  get(arn: string) {
    const found = this.#byArn.get(arn);
    if (!found) throw new ServiceError('ActivityDoesNotExist', `Activity Does Not Exist: '${arn}'`);
    return found;
  }

  /** A Task state's task, handed to the first worker waiting, else kept for the next poll. */
  schedule(arn: string, task: ActivityTask) {
    const activity = this.get(arn);
    const poller = activity.pollers.shift();
    if (poller) return poller.take(task);
    activity.tasks.push(task);
    task.signal.addEventListener('abort', () => {
      activity.tasks = activity.tasks.filter((waiting) => waiting !== task);
    });
  }

  /** GetActivityTask: the next task (its token and input), at once or within 60 s; none: no taskToken. */
  poll(arn: string, workerName: string | undefined) {
    const activity = this.get(arn);
    const taken = (task: ActivityTask | undefined): { taskToken?: string; input?: string } => {
      if (!task) return {};
      task.started(workerName ?? '');
      return { taskToken: task.token, input: task.input };
    };
    const ready = activity.tasks.shift();
    if (ready) return taken(ready);
    return new Promise<{ taskToken?: string; input?: string }>((resolve) => {
      const poller: Poller = {
        take: (task) => {
          clearTimeout(poller.timer);
          resolve(taken(task));
        },
        timer: setTimeout(() => {
          activity.pollers = activity.pollers.filter((waiting) => waiting !== poller);
          resolve({});
        }, pollMs),
      };
      activity.pollers.push(poller);
    });
  }

  /** Every poll answered with no task (the runner stops). */
  close() {
    for (const activity of this.#byArn.values())
      for (const poller of activity.pollers.splice(0)) poller.take(undefined);
  }
}
