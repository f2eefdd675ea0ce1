// Generated from openapi.yaml by tools/contract/generate.ts: do not edit.
import type { ValidateFunction } from 'ajv';
import type { CreatePlantEvent } from './openapi-types.ts';

declare const validate: ValidateFunction<CreatePlantEvent>;
export default validate;
