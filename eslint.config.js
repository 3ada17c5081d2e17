import js from '@eslint/js'
import n from 'eslint-plugin-n'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// Layer boundaries (docs/architecture.md), enforced rather than only described.
// A feature's data access: its repository (query builders, prepared queries, the functions that
// run them) and its tables' row types.
const DATA_ACCESS = String.raw`\.(repository|table)\.js$`
const httpPackages = ['fastify', 'fastify-plugin', '@fastify/*']
const httpCode = ['**/plugins/*', '**/api/*', '**/api/**/*', '**/app.js', '**/*.routes.js', '**/*.schemas.js', '**/*.mappers.js', '**/*.http.js']
const sqlPackages = { group: ['kysely', 'kysely/*', 'pg', 'better-sqlite3', '**/db/schema.js'], message: 'SQL stays in repositories (src/features/<name>/*.repository.ts) and src/db.' }
// A slice reaches another only through its public face, src/features/<name>/index.ts: one
// folder up from a slice's file is another slice, and only its index.js may be named there.
const otherSliceInside = { regex: String.raw`^\.\./(?!\.)[^/]+/(?!index\.js$).+`, message: "Reach another feature through its index.ts (its public face), never its files." }
// Outside the slices (the app, the API's shared parts, plugins, the CLI, the core), no slice is
// named: the core reads the slice list (src/features/index.ts), and what a slice gives the core
// (services, settings, error codes, request hooks, start-up work) comes through its manifest.
const sliceFromOutside = { regex: String.raw`(^|/)features/[^/]+/.+`, message: "The core names no slice: read the slice list (src/features/index.ts), and give the core what a slice offers through its feature.ts." }
// The HTTP side of a slice: its routes, wire schemas, mappers, HTTP helpers, its registration, its
// public face (which offers both sides) and its tests.
const SLICE_HTTP_SIDE = ['src/features/**/index.ts', 'src/features/**/*.routes.ts', 'src/features/**/*.schemas.ts', 'src/features/**/*.mappers.ts', 'src/features/**/*.http.ts', 'src/features/**/feature.ts', 'src/features/*.ts', 'src/features/**/*.test.ts']
const domainPatterns = [
  { group: httpPackages, message: 'Domain code must not depend on Fastify: keep HTTP in routes (*.routes.ts), src/api and src/plugins.' },
  { group: httpCode, message: 'Domain code must not import HTTP code (routes, schemas, mappers, src/api, src/plugins, the app).' },
  { regex: String.raw`^(?!\./).*` + DATA_ACCESS, message: "Use the other feature's service, types or events, never its data access." },
  otherSliceInside,
]
// Domain events are subscribed in a slice's feature.ts, so who reacts to what is read in one place per feature.
const subscribeOutsideFeature = {
  selector: "CallExpression[callee.property.name='subscribe']:matches([callee.object.name=/^domainEvents$/], [callee.object.property.name=/^domainEvents$/])",
  message: "Subscribe to domain events in the feature's feature.ts; work in a unit of work is a direct call on a named interface.",
}
// A constructor with more than four parameters takes one object instead, so its caller names each
// collaborator (CONTRIBUTING.md, "A feature slice").
const longConstructor = {
  selector: "MethodDefinition[kind='constructor'] > FunctionExpression[params.length>4]",
  message: 'A constructor takes at most four parameters: give it one object typed by an exported <Name>Dependencies interface.',
}
const processEnv = {
  selector: "VariableDeclarator[init.name='process'] > ObjectPattern > Property[key.name='env']",
  message: 'Read settings from Config (src/config.ts), the only reader of the environment.',
}
const httpSidePatterns = [
  { regex: DATA_ACCESS, message: 'Routes and plugins go through services, never a repository.' },
  sqlPackages,
]

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
    ignores: ['src/config.ts', 'src/**/*.test.ts'],
    plugins: { n },
    rules: {
      'n/no-process-env': 'error',
      'no-restricted-syntax': ['error', processEnv, longConstructor],
    },
  },
  {
    // A slice's domain code (services, domain types, repositories) knows nothing of HTTP, and
    // reaches another slice only through its index.ts: never its data access, by any path.
    files: ['src/features/**/*.ts'],
    ignores: SLICE_HTTP_SIDE,
    rules: { 'no-restricted-imports': ['error', { patterns: domainPatterns }] },
  },
  {
    files: ['src/features/**/*.ts'],
    ignores: ['src/features/**/feature.ts'],
    rules: { 'no-restricted-syntax': ['error', processEnv, subscribeOutsideFeature, longConstructor] },
  },
  {
    // Services hold their repository, never an executor or a query builder. A *.sql.ts file is a
    // rule compiled to SQL that the slice offers other slices' repositories through its index.ts
    // (posts' post-scope.sql.ts: the post policy as a subquery).
    files: ['src/features/**/*.ts'],
    ignores: [...SLICE_HTTP_SIDE, 'src/features/**/*.repository.ts', 'src/features/**/*.sql.ts', 'src/features/**/*.table.ts', 'src/features/**/migrations/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...domainPatterns, sqlPackages] }] },
  },
  {
    // A slice's HTTP side talks to services and maps domain types; SQL stays behind the repositories.
    files: SLICE_HTTP_SIDE,
    ignores: ['src/features/**/*.test.ts', 'src/features/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...httpSidePatterns, otherSliceInside] }] },
  },
  {
    // Each version maps the domain to its own shapes: v2 never reaches into v1.
    files: ['src/features/**/*.v2.*.ts'],
    ignores: ['src/features/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...httpSidePatterns,
            otherSliceInside,
            { regex: String.raw`\.v1\.\w+\.js$`, message: 'v2 never imports v1: share through a version-neutral file of the slice, src/api/common or the services.' },
          ],
        },
      ],
    },
  },
  {
    // A slice's manifest builds its services: it binds its own repositories (./<name>.repository.js)
    // to the database the composition hands it, and names nothing else of data access or SQL.
    files: ['src/features/*/feature.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: String.raw`^(?!\./[\w-]+\.repository\.js$).*` + DATA_ACCESS, message: "A slice's feature.ts binds its own repositories, nothing else of data access." }, sqlPackages, otherSliceInside] },
      ],
    },
  },
  {
    // A slice's tests may read its own internals and the database, but another slice only through its index.ts.
    files: ['src/features/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [otherSliceInside] }] },
  },
  {
    // The app's shared HTTP parts and plugins go through services; features through their index.ts.
    files: ['src/api/**/*.ts', 'src/plugins/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...httpSidePatterns, sliceFromOutside] }] },
  },
  {
    // The core and the entry points see a slice as its index.ts, or the slice list.
    files: ['src/*.ts', 'src/cli/**/*.ts', 'src/db/**/*.ts', 'src/shared/**/*.ts'],
    ignores: ['src/config.ts', 'src/db/migrations/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [sliceFromOutside] }] },
  },
  {
    // The settings name no slice: each slice's manifest reads its own (its `settings`), and
    // src/config.ts runs them from the slice list.
    files: ['src/config.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: String.raw`(^|/)features/[^/]+/.+`, message: "The settings name no slice: the slice's feature.ts reads its own (settings)." }] }],
    },
  },
  {
    // The one ordered list of migrations names a slice's own (src/features/<name>/migrations/).
    files: ['src/db/migrations/index.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: String.raw`(^|/)features/[^/]+/(?!migrations/[\w-]+\.js$).+`, message: 'The list of migrations names a slice\'s migrations, nothing else of it.' }] }],
    },
  },
  {
    // Migrations are frozen in time, so they see the database as Kysely<any>, not today's types.
    files: ['src/db/migrations/**', 'src/features/**/migrations/**', 'src/db/migrate.ts'],
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
