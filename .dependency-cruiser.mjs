// The architecture, as `npm run lint` holds it (dependency-cruiser resolves every import, so a rule says a boundary once,
// whatever the depth of the file). Each rule's comment is the message a wrong import fails with; README.md
// (Architecture) and CONTRIBUTING.md (Dependencies) say the same in prose. test/architecture.e2e.test.ts probes each rule.
//
// An app's functions are `functions/` here, or under a fixture app in `test/fixtures/<app>/`: the first group is the
// app's folder ('' for this one), so `$1` in a `to` names the same app.
const app = '^(test/fixtures/[^/]+/|)';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'functions-stand-alone',
      comment: 'functions/ holds what is bundled: it never imports infra/, test/ or tools/ (README, Architecture).',
      severity: 'error',
      from: { path: `${app}functions/` },
      to: { path: '^$1(infra|test|tools)/' },
    },
    {
      name: 'function-keeps-to-its-folder',
      comment:
        "A function never imports another function's folder (nor functions/commons/ any function's): share through functions/commons/.",
      severity: 'error',
      from: { path: `${app}functions/([^/]+)/` },
      to: { path: '^$1functions/', pathNot: '^$1functions/($2|commons)/' },
    },
    {
      name: 'stack-free-of-runner',
      comment:
        'The deployed stack never imports the local runner (packages/local-runner, a development tool): deleting it breaks nothing that deploys.',
      severity: 'error',
      from: { path: `${app}(functions|infra)/` },
      // Unanchored: an import of the package by name resolves to the package's real folder.
      to: { path: '(^|/)packages/local-runner/' },
    },
    {
      name: 'runner-free-of-product',
      comment:
        'The local runner serves any synthesized app: it imports nothing outside its package but its dependencies (packages/local-runner/docs/development.md).',
      severity: 'error',
      from: { path: '^packages/local-runner/' },
      // `aws-sdk`: the SDK v2 Lambda's nodejs16.x and older runtimes provide, which a fixture function takes from its
      // runtime (packages/local-runner/test/fixtures/shapes/counter.cjs); nothing installs it.
      // packages/test-support: what its tests share with an app's tests (itself free of any product, below).
      to: {
        pathNot: '(^|/)(packages/local-runner|packages/test-support|node_modules)/|^aws-sdk$',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'runner-uses-its-dependencies',
      comment:
        "What the runner ships (its src/) imports only its own package.json's `dependencies`: it installs and runs without anything else.",
      severity: 'error',
      from: { path: '^packages/local-runner/src/' },
      to: { dependencyTypes: ['npm-dev', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'runner-free-of-its-tests',
      comment:
        "The runner's src/ never imports its test/ nor packages/test-support: what it ships stands without its tests.",
      severity: 'error',
      from: { path: '^packages/local-runner/src/' },
      to: { path: '^packages/(local-runner/test|test-support)/' },
    },
    {
      name: 'runner-tests-kept-inside',
      comment:
        "Nothing outside the runner imports its test/: what an app's tests share with the runner's is in packages/test-support, imported as `test-support/<module>` (CONTRIBUTING.md, Boundaries).",
      severity: 'error',
      from: { pathNot: '^packages/local-runner/' },
      to: { path: '^packages/local-runner/test/' },
    },
    {
      name: 'test-support-free-of-product',
      comment:
        "packages/test-support serves the runner's tests and an app's alike: it imports nothing outside its package but its dependencies.",
      severity: 'error',
      from: { path: '^packages/test-support/' },
      to: { pathNot: '(^|/)(packages/test-support|node_modules)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'shipped-code-free-of-tests-and-tools',
      comment: 'infra/ never imports test/ or tools/: what deploys or serves stands without them (CONTRIBUTING.md).',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(test|tools)/' },
    },
    {
      name: 'helpers-free-of-tools',
      comment: 'test/helpers/ never imports tools/: programs reuse the helpers, not the other way (CONTRIBUTING.md).',
      severity: 'error',
      from: { path: '^test/helpers/' },
      to: { path: '^tools/' },
    },
    {
      name: 'no-test-imported',
      comment: 'A test file is never imported: share what tests have in common through test/helpers/.',
      severity: 'error',
      from: {},
      to: { path: '\\.test\\.ts$' },
    },
    {
      name: 'no-circular',
      comment:
        'No import circle, types included: a type two modules share lives in the one that owns its idea, or in a module of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'deployed-code-uses-dependencies',
      comment:
        'What deploys (functions/ and the CDK app in infra/) imports only `dependencies`; devDependencies are for the runner, tests and tools (CONTRIBUTING.md, Dependencies).',
      severity: 'error',
      from: { path: '^(functions|infra)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    // swc parses (TypeScript 7 has no JS API for dependency-cruiser to use); it reports `import type` too, marked
    // type-only, so the boundaries hold for types while deployed code may import types from devDependencies.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    // The runner's layer fixtures: functions importing what only their layer holds, found where Lambda finds it.
    exclude: {
      path: '^(cdk\\.out|coverage|examples/typed-client/node_modules|packages/local-runner/(node_modules|dist)|packages/local-runner/test/fixtures/(layered|layers))/',
    },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
