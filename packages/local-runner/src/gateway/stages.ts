// Which of an API's stages a request is served by: its path's first segment names it (a REST API's path may leave it
// out). The stage is the request's, passed to its pipeline: nothing of it is kept between requests.
import type { Api } from '../app/api.ts';
import type { Stage } from '../app/cfn.ts';

/** Whether `pathname`'s first segment is the stage `name`, and no top-level resource of `api` (a REST API's) is. */
export const isUnderStage = (api: Api, pathname: string, name: string) =>
  (pathname === `/${name}` || pathname.startsWith(`/${name}/`)) &&
  !(api.kind === 'rest' && api.routes.some(({ resourcePath }) => resourcePath.split('/')[1] === name));

/**
 * The stage whose name the path's first segment is: a REST API's (not when it has a top-level resource of that name:
 * the path is the resource's), else its first, as its path may leave the stage out; an HTTP API's, else `$default`,
 * else none (the path is then outside every stage).
 */
export const stageOf = (api: Api, pathname: string): Stage | undefined => {
  const named = api.stages.find(({ name }) => name !== '$default' && isUnderStage(api, pathname, name));
  return named ?? (api.kind === 'http' ? api.stages.find(({ name }) => name === '$default') : api.stages[0]);
};

/**
 * The stage that serves `pathname`; outside every stage (an HTTP API's named stages alone), the first, whose path then
 * matches no route. Every API has a stage (app/stages.ts gives one without a Stage resource).
 */
export const stageFor = (api: Api, pathname: string): Stage => stageOf(api, pathname) ?? (api.stages[0] as Stage);
