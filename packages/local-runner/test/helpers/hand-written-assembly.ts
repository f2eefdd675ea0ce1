// Cloud assemblies written by hand, each holding one template as its one stack (`Case`), for tests that read or serve
// templates they generate. Each folder is a temporary one of its own; `removeAll` (in the test file's afterAll)
// removes them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const handWrittenAssemblies = (prefix: string) => {
  const folders: string[] = [];
  /** An assembly folder holding `template` as its one stack. */
  const assemblyOf = (template: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), `local-runner-${prefix}-`));
    folders.push(dir);
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        artifacts: { Case: { type: 'aws:cloudformation:stack', properties: { templateFile: 't.json' } } },
      }),
    );
    writeFileSync(join(dir, 't.json'), JSON.stringify(template));
    return dir;
  };
  const removeAll = () => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  };
  return { assemblyOf, removeAll };
};

/** A Node.js function whose code is `zipFile` (Code.ZipFile, written as index.js), with further `properties`. */
export const inlineFunction = (zipFile: string, properties: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Runtime: 'nodejs24.x', Handler: 'index.handler', Code: { ZipFile: zipFile }, ...properties },
});

/** An HTTP API's integration proxying (payload 2.0) to the Arn of function `functionId`, on the API named `Http`. */
export const proxyIntegration = (functionId: string) => ({
  Type: 'AWS::ApiGatewayV2::Integration',
  Properties: {
    ApiId: { Ref: 'Http' },
    IntegrationType: 'AWS_PROXY',
    PayloadFormatVersion: '2.0',
    IntegrationUri: { 'Fn::GetAtt': [functionId, 'Arn'] },
  },
});
