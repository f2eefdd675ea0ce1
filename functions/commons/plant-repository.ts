// The port through which the functions store and read plants; dynamodb-plant-repository.ts is its adapter.

export interface PlantRecord {
  /** int64, exact. */
  id: bigint;
  name: string;
  tag?: string;
  /** ISO 8601 time of the first successful create. */
  createdAt: string;
  /** The principal (token subject) that created it. */
  createdBy: string;
}

export type CreateResult = { created: true } | { created: false; existing: PlantRecord };

export interface PlantRepository {
  /**
   * Stores `record` unless a plant with its id exists; then answers with the one stored. `signal` aborts the work
   * at the invocation's deadline.
   */
  createIfAbsent(record: PlantRecord, signal?: AbortSignal): Promise<CreateResult>;
}
