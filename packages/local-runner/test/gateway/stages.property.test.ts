// Which stage serves a request, over random stages, top-level resources and paths holding what real paths hold (`:`,
// `*`, `%`, spaces, empty segments): the path's first segment names the stage it is under, as API Gateway serves a
// stage at `https://<api>.execute-api.<region>.amazonaws.com/<stage>` ("Setting up a stage for a REST API"; "Working
// with stages for HTTP APIs": `$default` at the base URL). The oracle splits the path by hand; the code compares
// prefixes. A failure prints fast-check's seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Api } from '../../src/app/api.ts';
import type { Stage } from '../../src/app/cfn.ts';
import { stageFor, stageOf } from '../../src/gateway/stages.ts';

const names = ['prod', 'dev', 'v1', 'prod-2', 'a_b', '$default'];
const segment = fc.string({
  unit: fc.constantFrom('p', 'r', 'o', 'd', 'v', '1', ':', '*', '%', '2', 'F', ' ', '-', '$'),
});

/** The stage the oracle expects: the first segment's, unless a top-level resource is so named; else the fallback. */
const expected = (stages: Stage[], topLevel: string[], http: boolean, path: string) => {
  const [, first] = path.split('/');
  const named = stages.find(({ name }) => name !== '$default' && name === first && !topLevel.includes(name));
  return named ?? (http ? stages.find(({ name }) => name === '$default') : stages[0]);
};

test('the stage is the one the first segment names, else the fallback, for REST and HTTP APIs alike', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: names.length }),
      fc.subarray(names),
      fc.boolean(),
      fc.tuple(fc.option(fc.constantFrom(...names)), fc.array(segment, { maxLength: 4 }), fc.boolean()),
      (stageNames, topLevel, http, [first, rest, trailing]) => {
        const stages = stageNames.map((name) => ({ name, variables: { stage: name }, deploymentId: `D${name}` }));
        // Top-level resources are a REST API's: an HTTP API's named stage is always its path's first segment.
        const resources = http ? [] : topLevel;
        const app = {
          kind: http ? 'http' : 'rest',
          stages,
          routes: resources.map((name) => ({ resourcePath: `/${name}/items` })),
        } as unknown as Api;
        const path = `/${[...(first === null ? [] : [first]), ...rest].join('/')}${trailing ? '/' : ''}`;
        const stage = expected(stages, resources, http, path);
        expect(stageOf(app, path)).toBe(stage);
        // The stage that serves the path (its first stage outside every stage), the same object each time.
        const view = stageFor(app, path);
        expect(view).toMatchObject({
          name: (stage ?? stages[0])?.name,
          variables: (stage ?? stages[0])?.variables,
        });
        expect(stageFor(app, path)).toBe(view);
      },
    ),
  );
});
