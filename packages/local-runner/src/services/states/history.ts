// An execution's history as GetExecutionHistory gives it ("HistoryEvent", AWS Step Functions API Reference,
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html): each event its id (from 1),
// the previous event's id, its timestamp, its type (`ExecutionStarted`, `TaskStateEntered`, `TaskScheduled`,
// `LambdaFunctionSucceeded`, `MapIterationStarted`, ...) and its details under the member the API names for that type
// (`stateEnteredEventDetails` for every `...StateEntered`, `taskScheduledEventDetails`, ...).

export interface HistoryEvent {
  id: number;
  previousEventId: number;
  timestamp: number;
  type: string;
  [details: string]: unknown;
}

/** The member holding an event type's details: `TaskStateEntered` -> `stateEnteredEventDetails`. */
const detailsMember = (type: string) => {
  if (type.endsWith('StateEntered')) return 'stateEnteredEventDetails';
  if (type.endsWith('StateExited')) return 'stateExitedEventDetails';
  return `${type[0]?.toLowerCase()}${type.slice(1)}EventDetails`;
};

/** The API's payload details: the value as JSON text, never truncated locally. */
export const shownData = (value: unknown) => JSON.stringify(value ?? null);

export class History {
  readonly events: HistoryEvent[];

  /** A new history, or one kept in the data folder (`events`). */
  constructor(events: HistoryEvent[] = []) {
    this.events = events;
  }

  add(type: string, details?: Record<string, unknown>) {
    const id = this.events.length + 1;
    this.events.push({
      id,
      previousEventId: id - 1,
      timestamp: Date.now() / 1000,
      type,
      ...(details && { [detailsMember(type)]: details }),
    });
  }

  entered(type: string, name: string, input: unknown) {
    this.add(`${type}StateEntered`, { name, input: shownData(input), inputDetails: { truncated: false } });
  }

  exited(type: string, name: string, output: unknown) {
    this.add(`${type}StateExited`, { name, output: shownData(output), outputDetails: { truncated: false } });
  }
}
