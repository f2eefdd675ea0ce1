// Plain JavaScript on purpose: it must run, and fail clearly, on any Node, even one that cannot read TypeScript.
// The npm scripts must run on the Lambda runtime's Node (24), which `npm ci` installs as a devDependency.
// Without it (e.g. `npm ci --ignore-scripts`) npm silently falls back to the machine's Node: fail loudly instead.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Node ${process.versions.node} is running the npm scripts; they need Node 24, installed by \`npm ci\` ` +
      '(node_modules/.bin/node). Run `npm ci` without --ignore-scripts.',
  );
  process.exit(1);
}
