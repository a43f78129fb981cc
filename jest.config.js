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
  // cookie@2 (behind fastify's inject) is ESM-only; let swc turn it into CommonJS for Jest.
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(cookie)/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  maxWorkers: 2,
};
