// Lint rules that catch what the compiler does not: a promise nobody awaits or catches (an unhandled rejection stops
// the process), a promise passed where a callback's result is ignored, unused code, and type imports that are not
// marked as such. Type-aware (typescript-eslint's project service reads tsconfig.json). Formatting is Prettier's.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', 'coverage/**', 'examples/**', '.scratch/**', '**/*.mjs', '**/*.cjs', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `typeof import('x')` stays allowed: it is how a mock or a required module is typed without importing it.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
);
