// Whether a cloud assembly's Node.js bundles carry source maps: with them, `--inspect` needs no synth of its own (a
// debugger maps breakpoints in the TypeScript sources to the bundle through them), whatever the app would bundle
// differently for it (cli/options.ts, cloudAssemblyOf).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Resource {
  Type?: string;
  Properties?: { Runtime?: unknown; Handler?: unknown };
  Metadata?: Record<string, unknown>;
}

/** The module file a Node.js handler names (`file.export`), as the runtime looks for it; undefined when none is there. */
const moduleOf = (assetDir: string, handler: string) =>
  ['.js', '.mjs', '.cjs']
    .map((extension) => join(assetDir, `${handler.slice(0, handler.lastIndexOf('.'))}${extension}`))
    .find(existsSync);

/** Whether `file` has a source map: a `.map` beside it, or one its last line names (inline or a file). */
const hasSourceMap = (file: string) =>
  existsSync(`${file}.map`) || /\/\/# sourceMappingURL=\S+\s*$/.test(readFileSync(file, 'utf8').slice(-64 * 1024));

/** The Node.js functions (logical ids) of the assembly in `cloudAssemblyDir` whose bundle carries no source map. */
export const bundlesWithoutSourceMaps = (cloudAssemblyDir: string) => {
  const { artifacts = {} } = JSON.parse(readFileSync(join(cloudAssemblyDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  return Object.entries(artifacts)
    .filter(([, { type }]) => type === 'aws:cloudformation:stack')
    .flatMap(([name, { properties }]) => {
      const file = join(cloudAssemblyDir, properties?.templateFile ?? `${name}.template.json`);
      const { Resources = {} } = JSON.parse(readFileSync(file, 'utf8')) as { Resources?: Record<string, Resource> };
      return Object.entries(Resources).filter(([, { Type, Properties = {}, Metadata = {} }]) => {
        const assetPath = Metadata['aws:asset:path'];
        const { Runtime, Handler } = Properties;
        if (Type !== 'AWS::Lambda::Function' || typeof Runtime !== 'string' || !Runtime.startsWith('nodejs'))
          return false;
        if (typeof assetPath !== 'string' || typeof Handler !== 'string') return true;
        const module = moduleOf(join(cloudAssemblyDir, assetPath), Handler);
        return module === undefined || !hasSourceMap(module);
      });
    })
    .map(([id]) => id);
};
