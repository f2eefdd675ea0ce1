// openapi.yaml is the single source of the NewPlant schema: the committed generated code must be what it generates.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@jest/globals';
import { generate, outputs } from '../../../functions/commons/contract/generate.ts';

test.each(Object.keys(outputs) as (keyof typeof outputs)[])(
  'the committed %s code is generated from openapi.yaml as it is (run `npm run generate`)',
  async (name) => {
    const generated = await generate();
    expect(await readFile(outputs[name], 'utf8')).toBe(generated[name]);
  },
);
