// Whether this Node.js runs the package: an older one than its manifest's `engines` asks fails at import on an API it
// lacks (Node 20: `fs.globSync`), printing a stack; main.ts says what is needed in a line instead.

/** The refusal for Node.js `version` (`process.versions.node`) under `engines` (`>=MAJOR.MINOR`), or undefined. */
export const nodeRefusal = (version: string, engines: string): string | undefined => {
  const wanted = /^>=(\d+)\.(\d+)$/.exec(engines.trim());
  if (!wanted) throw new Error(`package.json's engines.node is not of the form >=MAJOR.MINOR: ${engines}`);
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [neededMajor, neededMinor] = [Number(wanted[1]), Number(wanted[2])];
  return major > neededMajor || (major === neededMajor && minor >= neededMinor)
    ? undefined
    : `cdk-local-runner needs Node.js ${neededMajor}.${neededMinor} or later; this is Node.js ${version}`;
};
