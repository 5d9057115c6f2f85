import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', '.suigw/**', 'dist/**', '.bench-build/**', '**/generated/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // One pipeline (services/pipeline): transport adapters and capabilities call it and never
    // build or call the authenticator, the meter or its parts themselves. Only the pipeline, the
    // modules it is built from, the composition root (cli) and tests may.
    files: ['services/**/*.ts', 'operator/**/*.ts'],
    ignores: ['services/pipeline/**', 'services/identity/**', 'services/metering/**', 'services/cli/**', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '(^|/)(identity|metering)(/index\\.js)?$',
          importNames: ['Authenticator', 'decideAccess', 'Meter', 'createMetering', 'CreditLedger', 'MemoryRateLimiter', 'RedisRateLimiter'],
          message: 'Call the request pipeline (services/pipeline) instead: one pipeline for every transport.',
        }],
      }],
    },
  },
);
