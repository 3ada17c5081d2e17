import js from '@eslint/js'
import n from 'eslint-plugin-n'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// Layer boundaries (docs/architecture.md), enforced rather than only described.
// A module's data access: its repository (query builders, prepared queries, the functions that run
// them) and its tables' row types.
const DATA_ACCESS = String.raw`\.(repository|table)\.js$`
const httpPackages = ['fastify', 'fastify-plugin', '@fastify/*']
const httpCode = ['**/plugins/*', '**/api/*', '**/api/**/*', '**/app.js']
const sqlPackages = { group: ['kysely', 'kysely/*', 'pg', 'better-sqlite3', '**/db/schema.js'], message: 'SQL stays in repositories (src/modules/<module>/*.repository.ts) and src/db.' }
const modulePatterns = [
  { group: httpPackages, message: 'Domain code must not depend on Fastify: keep HTTP in src/api and src/plugins.' },
  { group: httpCode, message: 'Domain code must not import HTTP code (src/api, src/plugins, the app).' },
  { regex: String.raw`^(?!\./).*` + DATA_ACCESS, message: "Use the other module's service, types or events, never its data access." },
]
// Domain events are subscribed in the composition (src/services.ts), so who reacts to what is read in one place.
const subscribeInModule = {
  selector: "CallExpression[callee.property.name='subscribe']:matches([callee.object.name=/^domainEvents$/], [callee.object.property.name=/^domainEvents$/])",
  message: 'Subscribe to domain events in src/services.ts; work in a unit of work is a direct call on a named interface.',
}
const processEnv = {
  selector: "VariableDeclarator[init.name='process'] > ObjectPattern > Property[key.name='env']",
  message: 'Read settings from Config (src/config.ts), the only reader of the environment.',
}

export default tseslint.config(
  { ignores: ['dist/', '**/dist/', '.build-*/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Node's modules, then packages, then the project's own files; each group in alphabetical order.
      // (simple-import-sort: no resolver, so no native binding that the install has to fetch per platform.)
      'simple-import-sort/imports': ['error', { groups: [['^node:'], ['^@?\\w'], ['^\\.']] }],
      'simple-import-sort/exports': 'error',
    },
  },
  {
    // Configuration is read and validated in one place: no process.env, however it is spelled.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    plugins: { n },
    rules: {
      'n/no-process-env': 'error',
      'no-restricted-syntax': ['error', processEnv],
    },
  },
  {
    // Domain code knows nothing of HTTP, and a module reaches another only through its service,
    // its domain types or a domain event: never its data access, by any path (a module's files
    // sit in its own folder, so only `./` reaches its own).
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: modulePatterns },
      ],
    },
  },
  {
    files: ['src/modules/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', processEnv, subscribeInModule] },
  },
  {
    // Services hold their repository, never an executor or a query builder.
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*.repository.ts', 'src/modules/**/*.table.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...modulePatterns,
            sqlPackages,
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
        {
          patterns: [
            { regex: DATA_ACCESS, message: 'Routes and plugins go through services, never a repository.' },
            sqlPackages,
          ],
        },
      ],
    },
  },
  {
    // Each version maps the domain to its own shapes: v2 never reaches into v1.
    files: ['src/api/v2/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: DATA_ACCESS, message: 'Routes and plugins go through services, never a repository.' },
            sqlPackages,
            { group: ['**/v1/*', '**/v1/**'], message: 'v2 never imports v1: share through src/api/common or the services.' },
          ],
        },
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
    // The account security page's script runs in the browser.
    files: ['account-pages/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // CLI entry points, scripts and the benchmark report to a terminal on purpose.
    files: ['src/cli/**', 'bench/**', 'scripts/**', 'vitest.config.ts'],
    rules: { 'no-console': 'off' },
  },
)
