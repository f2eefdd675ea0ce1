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

/** A page of plants, in the table's order (not by id), and where the next one starts. */
export interface PlantPage {
  plants: PlantRecord[];
  /** Opaque: given back to `list`, it answers the next page; absent on the last page. */
  cursor?: string;
}

export interface PlantRepository {
  /**
   * Stores `record` unless a plant with its id exists; then answers with the one stored. `signal` aborts the work
   * at the invocation's deadline.
   */
  createIfAbsent(record: PlantRecord, signal?: AbortSignal): Promise<CreateResult>;
  /** The plant stored with `id`, read after any create that was answered (a strongly consistent read). */
  get(id: bigint, signal?: AbortSignal): Promise<PlantRecord | undefined>;
  /**
   * At most `limit` plants, from where `cursor` (from the previous page) says, or from the start. A cursor this API
   * did not give is an InvalidRequestError (400).
   */
  list(page: { limit: number; cursor?: string | undefined }, signal?: AbortSignal): Promise<PlantPage>;
}
