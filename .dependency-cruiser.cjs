// The layers, enforced: domain ← commands, projections ← http, gateway; ports, presenters and contracts sit
// below the edges; infra implements the ports and holds the composition root (infra/main.ts and compose() in
// infra/compose.ts), which nothing imports but the entry points.
// `npm test` runs this (npm run lint:deps), so a new violation fails CI.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    // domain imports only domain, and no I/O (node:util's isDeepStrictEqual is the one builtin it uses, a pure one).
    { name: 'domain-only-domain', severity: 'error', from: { path: '^domain/' }, to: { pathNot: '^domain/', dependencyTypesNot: ['core'] } },
    { name: 'domain-no-io', severity: 'error', from: { path: '^domain/' }, to: { dependencyTypes: ['core'], pathNot: '^(node:)?util$' } },
    // The contracts (the objects the API answers with, and their types) sit below the edges and the presenters that
    // build those objects: they are schemas, built from the domain's constants and nothing else of the project.
    {
      name: 'contracts-only-contracts',
      severity: 'error',
      from: { path: '^contracts/' },
      to: { path: '^(commands|projections|http|gateway|infra|ports|presenters|processes)/' },
    },
    { name: 'commands-not-edges', severity: 'error', from: { path: '^commands/' }, to: { path: '^(http|gateway)/' } },
    { name: 'projections-not-edges', severity: 'error', from: { path: '^projections/' }, to: { path: '^(http|gateway|commands)/' } },
    { name: 'http-not-gateway', severity: 'error', from: { path: '^http/' }, to: { path: '^gateway/' } },
    // A route module is one resource's entries: what two share (a body schema, a presenter, the operation of a path both
    // answer) lives in http/shared/, a use case in commands/ or a presenter in presenters/, never in one of them.
    { name: 'routes-not-routes', severity: 'error', from: { path: '^http/routes/' }, to: { path: '^http/routes/' } },
    { name: 'gateway-not-http', severity: 'error', from: { path: '^gateway/' }, to: { path: '^http/' } },
    // Process workflows (interaction delivery) run beside the edges on the core: the root builds them, no one else.
    { name: 'processes-not-edges', severity: 'error', from: { path: '^processes/' }, to: { path: '^(http|gateway)/' } },
    { name: 'processes-from-root', severity: 'error', from: { pathNot: '^(infra|processes)/' }, to: { path: '^processes/' } },
    // Adapters stay in infra: the core and the edges reach them only through ports/.
    {
      name: 'adapters-in-infra',
      severity: 'error',
      from: { path: '^(commands|projections|http|gateway|ports|presenters|processes)/' },
      to: { path: '^infra/' },
    },
    { name: 'no-composition-root', severity: 'error', from: {}, to: { path: '^infra/main\\.ts$' } },
    // compose() builds every role; only the other entry point (the replay tool) reaches it, and test/support (not cruised).
    { name: 'compose-from-entry-points', severity: 'error', from: { pathNot: '^infra/(main|replay)\\.ts$' }, to: { path: '^infra/compose\\.ts$' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|dist|node_modules)/' },
  },
};
