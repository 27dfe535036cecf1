/**
 * Import rules: imports point down the layers of docs/architecture.md, never up and never
 * sideways between folders of one layer. Enforced by test/architecture/layers.test.ts.
 */
const LAYERS = [
  ['core'],
  ['runtime'],
  ['telemetry'],
  ['store'],
  ['handoff', 'faults', 'conformance', 'sender', 'kit'],
  ['ingest', 'relay', 'emulator', 'service'],
  ['bridge'],
  ['client'],
  ['metrics', 'reporter'],
  ['console'],
  ['config'],
  ['app'],
  ['testing'],
  // The commands and the MCP server's tools (src/mcp/) are one front end: the tools call what the commands call.
  ['commands|mcp'],
];

const folder = (names) => `^src/(${names.join('|')})/`;

const forbidden = [];
LAYERS.forEach((layer, i) => {
  const above = LAYERS.slice(i + 1).flat();
  if (above.length > 0) {
    forbidden.push({
      name: `${layer.join('-')}-imports-up`,
      comment: `${layer.join(', ')} may import only the layers below it (docs/architecture.md)`,
      severity: 'error',
      from: { path: folder(layer) },
      to: { path: [folder(above), '^src/[^/]+\\.ts$'] },
    });
  }
  for (const name of layer) {
    const siblings = layer.filter((other) => other !== name);
    if (siblings.length === 0) continue;
    forbidden.push({
      name: `${name}-imports-sideways`,
      comment: `${name} may not import ${siblings.join(', ')}: they are one layer`,
      severity: 'error',
      from: { path: folder([name]) },
      to: { path: folder(siblings) },
    });
  }
});

forbidden.push(
  {
    name: 'core-is-pure',
    comment: 'the core does no I/O of its own: no HTTP, database, WebSocket, logging or metrics library',
    severity: 'error',
    from: { path: '^src/core/' },
    to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
  },
  {
    name: 'kit-imports-only-core',
    comment: 'the integrator kit (hookrelay, hookrelay/express, /fastify, /fetch) is the core with adapters: it ships without the receiver',
    severity: 'error',
    from: { path: '^src/kit/' },
    to: { path: '^src/', pathNot: '^src/(core|kit)/' },
  },
  {
    name: 'kit-portable-has-no-node',
    comment: 'what runs in browsers and Workers (hookrelay/fetch, verifyAsync) imports no Node module and no library; test/kit/portable.test.ts follows the whole graph',
    severity: 'error',
    from: { path: '^src/kit/(web|verify-async|web-verifier|fetch|fetch-handler|receive|read-envelope|events|errors)\\.ts$' },
    to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
  },
  {
    name: 'no-dynamic-import-of-a-library',
    comment: "a library loaded on use is re-exported by one of our modules, which the dynamic import names (src/runtime/undici-on-use.ts): the CLI's bundle keeps only a CommonJS package's default export behind a dynamic import",
    severity: 'error',
    from: { path: '^src/' },
    to: { dynamic: true, dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
  },
  {
    name: 'no-cycles',
    severity: 'error',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    name: 'client-is-the-service-facade',
    comment: 'hookrelay/client re-exports the service client: it imports src/service/ (and the core) and nothing else of src/',
    severity: 'error',
    from: { path: '^src/client/' },
    to: { path: '^src/', pathNot: '^src/(client|service|core)/' },
  },
  {
    name: 'src-never-imports-tests',
    severity: 'error',
    from: { path: '^src/' },
    to: { path: '^(test|bench)/' },
  },
);

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
