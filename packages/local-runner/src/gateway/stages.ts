// Which of an API's stages a request is served by: its path's first segment names it (a REST API's path may leave it
// out), and the app as that stage serves it, made once per stage.
import type { LocalStage } from '../app/cfn.ts';
import type { LocalApp } from '../app/template.ts';

/** Whether `pathname`'s first segment is the stage `name`, and no top-level resource of `app` (a REST API's) is. */
export const isUnderStage = (app: LocalApp, pathname: string, name: string) =>
  (pathname === `/${name}` || pathname.startsWith(`/${name}/`)) &&
  !app.routes.some(({ resourcePath }) => resourcePath.split('/')[1] === name);

/**
 * The stage whose name the path's first segment is: a REST API's (not when it has a top-level resource of that name:
 * the path is the resource's), else its first, as its path may leave the stage out; an HTTP API's, else `$default`,
 * else none (the path is then outside every stage).
 */
export const stageOf = (app: LocalApp, pathname: string): LocalStage | undefined => {
  const named = app.stages.find(({ name }) => name !== '$default' && isUnderStage(app, pathname, name));
  return named ?? (app.httpApi ? app.stages.find(({ name }) => name === '$default') : app.stages[0]);
};

/** Each app's view per stage (its name, variables and deployment in place of the first stage's), made once. */
const views = new WeakMap<LocalApp, Map<string, LocalApp>>();

/**
 * `app` as the stage `pathname` names serves it; outside every stage (an HTTP API's named stages alone), its first
 * stage's, whose path then matches no route.
 */
export const appForPath = (app: LocalApp, pathname: string): LocalApp => {
  let byStage = views.get(app);
  if (!byStage) {
    byStage = new Map(
      app.stages.map((stage) => {
        const view = { stageName: stage.name, stageVariables: stage.variables };
        const { httpApi } = app;
        return [
          stage.name,
          { ...app, ...view, deployment: stage.deployment, httpApi: httpApi && { ...httpApi, ...view } },
        ] as const;
      }),
    );
    views.set(app, byStage);
  }
  const stage = stageOf(app, pathname) ?? app.stages[0];
  return (stage && byStage.get(stage.name)) ?? app;
};
