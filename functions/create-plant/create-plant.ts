import type { NewPlant, Plant } from '../commons/contract/openapi-types.ts';
import { ConflictError, InvalidRequestError } from '../commons/errors.ts';
import type { PlantRepository } from '../commons/plant-repository.ts';

export interface CreatePlantDeps {
  plants: PlantRepository;
  now: () => Date;
  /** Aborted at the invocation's deadline. */
  signal?: AbortSignal;
}

const plantOf = ({ name, tag }: { name: string; tag?: string | undefined }): Plant =>
  tag === undefined ? { name } : { name, tag };

/**
 * Creates a plant, safely retried: the same id with the same name and tag answers the stored plant again,
 * the same id with other content is a conflict. Body fields other than id, name and tag are not stored.
 */
export const createPlant = async (input: NewPlant, createdBy: string, deps: CreatePlantDeps): Promise<Plant> => {
  const plant = plantOf(input);
  for (const [field, value] of Object.entries(plant)) {
    // DynamoDB stores UTF-8: a lone surrogate would be replaced by U+FFFD, silently changing the text.
    if (!value.isWellFormed()) throw new InvalidRequestError(`${field}: must be well-formed Unicode text`);
  }
  const id = BigInt(input.id);
  const record = { id, ...plant, createdAt: deps.now().toISOString(), createdBy };
  const result = await deps.plants.createIfAbsent(record, deps.signal);
  if (result.created) return plant;
  const stored = plantOf(result.existing);
  if (stored.name !== plant.name || stored.tag !== plant.tag) {
    throw new ConflictError(`A plant with id ${id} already exists with a different name or tag`);
  }
  return stored;
};
