// Types of the generated validator beside this file (ajv standalone code, a plain function).
import type { ValidateFunction } from 'ajv';
import type { NewPlant } from './openapi-types.ts';

declare const validate: ValidateFunction<{ body: NewPlant }>;
export default validate;
