/** Jest runs TypeScript through swc, which emits the decorator metadata type-graphql reads. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

/** What both projects share: TypeScript through swc, decorator metadata, node environment. */
const common = {
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  // Jest's node environment, failing a test file that leaves a handle open (the file is named, not
  // only a worker "failed to exit gracefully" at the end): test/setup/handle-checked-environment.js.
  testEnvironment: '<rootDir>/test/setup/handle-checked-environment.js',
  testMatch: ['**/*.test.ts'],
  // cookie@2 (behind fastify's inject) is ESM-only; let swc turn it into CommonJS for Jest. So are
  // apollo-upload-client (.mjs), its dependencies, and the @apollo/client files it imports deeply.
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [
    '/node_modules/(?!(cookie|apollo-upload-client|extract-files|is-plain-obj|@apollo/client)/)',
  ],
  setupFiles: ['reflect-metadata'],
};

/**
 * Two projects: `unit` tests rules with plain inputs and never starts a database (`npm run test:unit`);
 * `integration` brings up the real database once for the run (its globalSetup runs only when one of its
 * tests is selected).
 */
module.exports = {
  // Jest reads the test timeout from the top level only, not from a project.
  testTimeout: 60000,
  // Its transform cache inside the repository (ignored by git), not in /tmp: npm test leaves nothing outside.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  maxWorkers: 2,
  // A worker whose heap passed this after a test file is replaced by a fresh one. Every file loads the app's
  // modules anew, so a worker's heap grows with each; a worker that large outlasted Jest's 500 ms to exit,
  // which Jest reports as a worker "failed to exit gracefully" though no handle was open (issue 44's note).
  // 800 MB held on the machines of then; a VM half as fast (2026-11-29, session 33: CPU probe 51–82 ms
  // against 36) forced one worker's exit at the end of an otherwise green run, so 512 MB, with margin.
  workerIdleMemoryLimit: '512MB',
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...common,
      displayName: 'integration',
      roots: ['<rootDir>/test/integration'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
