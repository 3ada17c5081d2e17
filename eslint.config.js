import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// Layer boundaries (README "Layout"), enforced rather than only described.
const repositoryFiles = ['**/*.repository.js', '**/*.queries.js', '**/*.prepared.js']
const otherModulesRepositories = ['../*/*.repository.js', '../*/*.queries.js', '../*/*.prepared.js']
const httpPackages = ['fastify', 'fastify-plugin', '@fastify/*']
const httpCode = ['**/plugins/*', '**/api/*', '**/api/**/*', '**/app.js']

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Configuration is read and validated in one place.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read settings from Config (src/config.ts), the only reader of process.env.',
        },
      ],
    },
  },
  {
    // Domain code knows nothing of HTTP, and a module reaches another only through its service or types.
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: httpPackages, message: 'Domain code must not depend on Fastify: keep HTTP in src/api and src/plugins.' },
            { group: httpCode, message: 'Domain code must not import HTTP code (src/api, src/plugins, the app).' },
            { group: otherModulesRepositories, message: "Use the other module's service or types, never its repository." },
          ],
        },
      ],
    },
  },
  {
    // HTTP code talks to services and maps domain types; SQL stays behind the repositories.
    files: ['src/api/**/*.ts', 'src/plugins/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: repositoryFiles, message: 'Routes and plugins go through services, never a repository.' }] },
      ],
    },
  },
  {
    // Migrations are frozen in time, so they see the database as Kysely<any>, not today's types.
    files: ['src/db/migrations/**', 'src/db/migrate.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The admin console runs in the browser.
    files: ['admin/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // CLI entry points, scripts and the benchmark report to a terminal on purpose.
    files: ['src/cli/**', 'bench/**', 'scripts/**', 'vitest.config.ts'],
    rules: { 'no-console': 'off' },
  },
)
