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

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // cookie@2 (behind fastify's inject) is ESM-only; let swc turn it into CommonJS for Jest. So are
  // apollo-upload-client (.mjs), its dependencies, and the @apollo/client files it imports deeply.
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|apollo-upload-client|extract-files|is-plain-obj|@apollo/client)/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  maxWorkers: 2,
};
