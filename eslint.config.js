// @ts-check
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';
import { coreLayerRules } from './eslint.core-layers.js';

const NO_SPREAD_ARGUMENTS = {
  selector: 'CallExpression > SpreadElement.arguments, NewExpression > SpreadElement.arguments',
  message: 'No spread arguments (push(...rows), Math.max(...values)): an unbounded array overflows the call stack; use a loop.',
};

const NO_PLAIN_ERRORS = {
  selector: 'NewExpression[callee.name=/^(Error|TypeError|RangeError)$/], CallExpression[callee.name=/^(Error|TypeError|RangeError)$/], ThrowStatement > Literal',
  message: 'Throw a SlidingContextError with a code (src/errors), not a plain Error.',
};

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'examples/', '**/__fixtures__/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  stylistic.configs.customize({ indent: 2, quotes: 'single', semi: true, arrowParens: true, braceStyle: '1tbs' }),
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@stylistic/max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true }],
      '@stylistic/operator-linebreak': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A spread argument passes each element on the stack: a long history (a million messages)
    // exceeds what a call takes and throws a RangeError. Loop instead.
    // The library raises only SlidingContextError, with a code a caller can branch on.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/testing/**'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD_ARGUMENTS, NO_PLAIN_ERRORS] },
  },
  {
    // The command line and the test programs may throw what they like: the CLI prints it.
    files: ['src/cli/**/*.ts', 'src/**/_test-*.ts', 'src/**/*.contract.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD_ARGUMENTS] },
  },
  {
    files: ['**/*.test.ts', 'src/testing/**', 'src/**/_test-*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Test tables read best one case a line.
      '@stylistic/max-len': 'off',
      // Vitest's asymmetric matchers (expect.objectContaining, …) are typed `any` by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  // The core (message < exchange < tokens < window < condense) does no I/O and imports only below itself.
  ...coreLayerRules(),
  { files: ['eslint.config.js', 'eslint.core-layers.js', 'types/*.d.ts'], ...tseslint.configs.disableTypeChecked },
);
