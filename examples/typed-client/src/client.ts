// A typed Plant Store client: openapi-fetch over the types generated from openapi.yaml (src/plant-store-api.d.ts,
// where int64 is `bigint`). What a consumer of the API needs besides the types:
// - int64 exact both ways: JSON.stringify cannot write a bigint, and a `number` loses precision beyond 2^53, so
//   bodies are written with each bigint as its JSON number, and answers read with their int64 fields as bigint
//   (exact-json.ts, where int64-fields.ts says they are);
// - answers to act on: 200 the stored plant, 400 (fix the request) and 409 (the id is taken) as results;
// - 503 retried after the `Retry-After` the API sends (DynamoDB throttling or unavailable), a few times.
import createClient from 'openapi-fetch';
import { exactInt64, exactJson, type Int64Fields } from './exact-json.ts';
import { int64Fields } from './int64-fields.ts';
import type { components, paths } from './plant-store-api.d.ts';

export type NewPlant = components['schemas']['NewPlant'];
export type Plant = components['schemas']['Plant'];
export type ApiError = components['schemas']['Error'];

export type CreateResult =
  | { ok: true; plant: Plant }
  /** 400: the request is wrong (the message names the field); 409: the id is another plant's. */
  | { ok: false; status: 400 | 409; error: ApiError };

/** Any other answer: 401/403 (the token), 413, 415, 429, 5xx, and a 503 that lasted through every attempt. */
export class PlantStoreError extends Error {
  override name = 'PlantStoreError';
  readonly status: number;
  constructor(status: number, error: ApiError | undefined) {
    super(`Plant Store answered ${status}: ${error?.message ?? 'no Error body'}`);
    this.status = status;
  }
}

export interface ClientOptions {
  /** The API's URL (with its stage on AWS), e.g. http://127.0.0.1:3000 locally. */
  baseUrl: string;
  /** A bearer token with the plants/write scope. */
  token: string;
  /** Attempts when the API answers 503 (default 3). */
  maxAttempts?: number;
  /** The longest wait between attempts, whatever Retry-After says (default 10 s). */
  maxWaitSeconds?: number;
  fetch?: typeof fetch;
}

/**
 * An openapi-fetch client of any contract (`Paths` and `fields` generated from it by generate.ts), every operation
 * typed, int64 exact both ways, with the bearer token.
 */
export const createExactClient = <Paths extends object>(
  { baseUrl, token, fetch }: Pick<ClientOptions, 'baseUrl' | 'token' | 'fetch'>,
  fields: Int64Fields,
) => {
  const client = createClient<Paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${token}` },
    bodySerializer: exactJson,
    ...(fetch && { fetch }),
  });
  client.use(exactInt64(fields));
  return client;
};

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export const createPlantStoreClient = ({
  baseUrl,
  token,
  maxAttempts = 3,
  maxWaitSeconds = 10,
  ...rest
}: ClientOptions) => {
  const client = createExactClient<paths>({ baseUrl, token, ...(rest.fetch && { fetch: rest.fetch }) }, int64Fields);
  return {
    /** Every operation of openapi.yaml, typed (openapi-fetch), for what createPlant does not wrap. */
    api: client,
    async createPlant(plant: NewPlant): Promise<CreateResult> {
      for (let attempt = 1; ; attempt += 1) {
        const { data, error, response } = await client.POST('/plants', { body: plant });
        if (data) return { ok: true, plant: data };
        if (response.status === 400 || response.status === 409) return { ok: false, status: response.status, error };
        if (response.status !== 503 || attempt >= maxAttempts) throw new PlantStoreError(response.status, error);
        await pause(Math.min(Number(response.headers.get('Retry-After') ?? 1) || 1, maxWaitSeconds));
      }
    },
  };
};
