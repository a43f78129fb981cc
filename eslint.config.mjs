// ESLint for the TypeScript sources and tests, and the JavaScript benches and scripts (run by `npm test`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'third_party/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused arguments are kept where a signature requires them (resolvers, hooks): prefix them with _.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Prettier wraps code at 120; what it cannot wrap is held to the same width with no exception: long
      // comments are reflowed, long string and template literals are split with + (their value unchanged).
      'max-len': ['error', { code: 120 }],
      // A variable read by a closure before its one assignment (a logger set once the app exists).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read the API's JSON answers, whose shape is what they check, and load ESM-only client
    // libraries (apollo-upload-client, relay) through require.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  // Relay documents for relay-compiler (graphql`…` tags it reads, never executed).
  { ignores: ['test/integration/graphql/relay/AgoraRelay.js'] },
);
